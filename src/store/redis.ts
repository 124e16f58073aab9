import { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * A Redis client that fails fast: no offline queue (a command while disconnected fails at once instead of
 * waiting), one retry per command, short connect/command timeouts. Callers degrade rather than hang.
 */
export async function openRedis(url: string, logger: Logger, readyTimeoutMs = 2_000): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let healthy = true;
  client.on('ready', () => {
    if (!healthy) logger.info('redis connection restored');
    healthy = true;
  });
  client.on('error', (err) => {
    if (healthy) logger.warn({ err }, 'redis unavailable; will keep reconnecting');
    healthy = false;
  });
  // Starting without Redis is allowed (readiness reports it); waiting briefly avoids a needless first "not ready".
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyTimeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return client;
}
