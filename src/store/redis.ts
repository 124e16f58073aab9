import { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * A Redis client that fails fast: no offline queue (a command while disconnected fails at once instead of
 * waiting), no retry of a command caught in a dropped connection (it fails at once, and nothing is replayed
 * later to a caller that has moved on), short connect/command timeouts, and TCP keepalive so a silently dead
 * connection (a partition, a NAT that forgot it) is noticed even with no traffic — the pub/sub connection has
 * none. A Redis that accepts bytes and never answers is the breaker's job (src/store/redis-health.ts).
 */
export async function openRedis(url: string, logger: Logger, readyTimeoutMs = 2_000): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    keepAlive: 1_000,
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
