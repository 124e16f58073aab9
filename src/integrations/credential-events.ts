import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../logger';
import { type Broadcast, openBroadcast } from '../store/redis-broadcast';
import { INTEGRATION_IDS, type IntegrationId } from '../core/integrations';

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

export type CredentialEvents = Broadcast<CredentialChange>;

export const CREDENTIAL_CHANNEL = 'hub:credentials:changed';

// Everything that arrives is validated: another process (or anyone with Redis access) wrote it.
const messageSchema = z.strictObject({
  origin: z.string().max(64),
  customer_id: z.uuid(),
  user_id: z.string().min(1).max(255).nullable(),
  integration: z.enum(INTEGRATION_IDS),
});

export const openCredentialEvents = (redis: Redis, logger: Logger): Promise<CredentialEvents> =>
  openBroadcast(redis, logger, {
    channel: CREDENTIAL_CHANNEL,
    what: 'credential events',
    fallback: 'caches fall back to their TTL',
    schema: messageSchema,
    encode: (c: CredentialChange) => ({ customer_id: c.customerId, user_id: c.userId, integration: c.integration }),
    decode: (m) => ({ customerId: m.customer_id, userId: m.user_id, integration: m.integration }),
  });
