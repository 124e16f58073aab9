import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import { RedisUnavailableError } from '../store/redis-health';
import type { SharedRedis } from './rate-limit';

/**
 * At most `limit` requests in flight to one mailbox across ALL replicas: a counting semaphore in Redis, per
 * mailbox a sorted set of lease tokens scored by when each lease expires. Outlook allows 4 concurrent requests per
 * app and mailbox (learn.microsoft.com/graph/throttling-limits#outlook-service-limits) whichever replica sends
 * them; a per-replica cap alone lets N replicas send N×4 and meet Graph's 429 MailboxConcurrency.
 *
 * A slot is a lease: it ends at its release (ZREM of its token) or, if the replica holding it dies, when it expires
 * `leaseMs` after it was taken — a bound above any one attempt, so a live request never loses its slot. Leases are
 * timed by Redis' own clock, so replicas agree. A waiter retries with a short jittered backoff until it gets a
 * slot or its signal fires. This gate comes second, behind the replica's own (mailbox-gate.ts), so a replica never
 * asks Redis for more than `limit` slots of a mailbox at once; when Redis is not available the caller goes on
 * with that in-process gate alone, as the budgets count in the replica then (sliding-quota.ts).
 */

export type SharedAdmission = { ok: true; release: () => void } | { ok: false; reason: 'deadline' | 'unavailable' };

export interface SharedMailboxSlots {
  acquire(mailbox: string, signal: AbortSignal): Promise<SharedAdmission>;
}

export interface SharedSlotSettings {
  /** Slots per mailbox across replicas. */
  limit: number;
  /** How long a slot stays taken when it is never released (its holder died): above the longest attempt. */
  leaseMs: number;
  /** Longest one Redis command may take before the caller goes on without Redis. */
  redisTimeoutMs: number;
}

/** Drops expired leases; adds ARGV[3] expiring ARGV[2] ms from Redis' now if fewer than ARGV[1] remain. 1: taken. */
const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
redis.call('PEXPIRE', KEYS[1], lease)
return 1
`;

/** Waits between tries: from 5 ms, doubling up to 50 ms, each drawn in its upper half so waiters spread out. */
const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 50;

/** The Redis key of a mailbox's slots: keys name no one, so the address is hashed (as the budgets do). */
export const sharedSlotsKey = (mailbox: string) => `hub:mailbox-inflight:${createHash('sha256').update(mailbox).digest('base64url').slice(0, 32)}`;

function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function createSharedMailboxSlots(settings: SharedSlotSettings, redis: SharedRedis, logger: Logger): SharedMailboxSlots {
  const run = <T>(command: () => Promise<T>) => redis.health.call(command, settings.redisTimeoutMs);
  const unavailable = (err: unknown, what: string): SharedAdmission => {
    if (!(err instanceof RedisUnavailableError)) logger.warn({ err }, `a mailbox slot could not be ${what} in Redis; capping in this replica`);
    return { ok: false, reason: 'unavailable' };
  };

  return {
    async acquire(mailbox, signal) {
      const key = sharedSlotsKey(mailbox);
      const token = randomUUID();
      let wait = FIRST_WAIT_MS;
      for (;;) {
        if (signal.aborted) return { ok: false, reason: 'deadline' };
        if (!redis.health.available()) return { ok: false, reason: 'unavailable' };
        let taken: number;
        try {
          taken = (await run(() => redis.client.eval(ACQUIRE_SCRIPT, 1, key, settings.limit, settings.leaseMs, token))) as number;
        } catch (err) {
          // Had the script run after all, its lease holds a slot only until it expires.
          return unavailable(err, 'taken');
        }
        if (taken === 1) {
          let released = false;
          const release = () => {
            if (released) return;
            released = true;
            // Not awaited: the answer is on its way already. A lost ZREM only holds the slot until its lease ends.
            run(() => redis.client.zrem(key, token)).catch((err: unknown) => unavailable(err, 'released'));
          };
          return { ok: true, release };
        }
        if (!(await pause(wait / 2 + Math.random() * (wait / 2), signal))) return { ok: false, reason: 'deadline' };
        wait = Math.min(LONGEST_WAIT_MS, wait * 2);
      }
    },
  };
}
