import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../logger';
import { type Broadcast, openBroadcast } from '../store/redis-broadcast';

/**
 * "A service key or a policy changed" between replicas (Redis pub/sub, as credential-events.ts does for
 * connections), so a revocation or a policy edit on one replica is in force on all of them at once rather than
 * after HUB_ACCESS_CACHE_TTL_MS. Best effort by design: a message lost while Redis is down only means that TTL
 * bounds staleness again. Messages carry ids only.
 */

export type AccessChange = { kind: 'service_keys' } | { kind: 'policy'; customerId: string };

export type AccessEvents = Broadcast<AccessChange>;

export const ACCESS_CHANNEL = 'hub:access:changed';

// Validated: another process (or anyone with Redis access) wrote it.
const messageSchema = z.discriminatedUnion('kind', [
  z.strictObject({ origin: z.string().max(64), kind: z.literal('service_keys') }),
  z.strictObject({ origin: z.string().max(64), kind: z.literal('policy'), customer_id: z.uuid() }),
]);

export const openAccessEvents = (redis: Redis, logger: Logger): Promise<AccessEvents> =>
  openBroadcast(redis, logger, {
    channel: ACCESS_CHANNEL,
    what: 'access events',
    fallback: 'service keys and policies fall back to their cache TTL',
    schema: messageSchema,
    encode: (c: AccessChange) => (c.kind === 'policy' ? { kind: 'policy' as const, customer_id: c.customerId } : { kind: 'service_keys' as const }),
    decode: (m): AccessChange => (m.kind === 'policy' ? { kind: 'policy', customerId: m.customer_id } : { kind: 'service_keys' }),
  });
