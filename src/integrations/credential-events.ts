import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../logger';
import { INTEGRATION_IDS, type IntegrationId } from './integrations';

/**
 * "This connection changed" between replicas (Redis pub/sub), so a disconnect or reconnect on one replica
 * clears the credential caches of all of them at once instead of after HUB_CREDENTIAL_CACHE_TTL_MS. Best effort
 * by design: a message lost while Redis is down only means the cache TTL bounds staleness again, and Google's
 * 401 to a revoked token triggers a re-read anyway. Messages carry ids only — never a token.
 */

export interface CredentialChange {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
}

export interface CredentialEvents {
  /** Tells the other replicas (fire and forget; a failure is logged, never thrown). */
  publish(change: CredentialChange): void;
  /** The local invalidation to run when another replica reports a change. */
  onRemoteChange(handler: (change: CredentialChange) => void): void;
  close(): Promise<void>;
}

export const CREDENTIAL_CHANNEL = 'hub:credentials:changed';

// Everything that arrives is validated: another process (or anyone with Redis access) wrote it.
const messageSchema = z.strictObject({
  origin: z.string().max(64),
  customer_id: z.uuid(),
  user_id: z.string().min(1).max(255).nullable(),
  integration: z.enum(INTEGRATION_IDS),
});

export async function openCredentialEvents(redis: Redis, logger: Logger): Promise<CredentialEvents> {
  const origin = randomUUID();
  let handler: ((change: CredentialChange) => void) | undefined;
  // Subscribing needs its own connection; it may queue SUBSCRIBE until connected and re-subscribes on reconnect.
  const subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true });
  subscriber.on('error', (err) => logger.debug({ err }, 'credential events: redis subscriber error'));
  subscriber.on('message', (channel: string, raw: string) => {
    if (channel !== CREDENTIAL_CHANNEL) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const message = messageSchema.safeParse(parsed);
    if (!message.success) return logger.warn('credential events: ignored a malformed message');
    if (message.data.origin === origin) return; // our own change: already applied locally
    handler?.({ customerId: message.data.customer_id, userId: message.data.user_id, integration: message.data.integration });
  });
  try {
    await subscriber.connect();
    await subscriber.subscribe(CREDENTIAL_CHANNEL);
  } catch (err) {
    // Redis down at start: keep trying in the background (ioredis reconnects and re-subscribes).
    logger.warn({ err }, 'credential events: not subscribed yet; caches fall back to their TTL until Redis answers');
    void subscriber.subscribe(CREDENTIAL_CHANNEL).catch(() => {});
  }

  return {
    publish(change) {
      const message = JSON.stringify({ origin, customer_id: change.customerId, user_id: change.userId, integration: change.integration });
      redis.publish(CREDENTIAL_CHANNEL, message).catch((err: unknown) => logger.warn({ err }, 'credential events: publish failed; other replicas rely on their cache TTL'));
    },
    onRemoteChange(h) {
      handler = h;
    },
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
