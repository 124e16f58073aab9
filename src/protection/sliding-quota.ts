import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import { RedisUnavailableError } from '../store/redis-health';
import type { Charge, MailboxQuota, QuotaSettings } from './mailbox-quota';
import type { SharedRedis } from './rate-limit';

/**
 * A mailbox budget over a SLIDING window: at most `units` in any `windowS`, each unit counted from when it was
 * spent until `windowS` later — as a vendor that counts "requests in a 10-minute period" counts them (Outlook,
 * learn.microsoft.com/graph/throttling-limits#outlook-service-limits). A fixed window (mailbox-quota.ts) refills
 * at once when it ends, so a mailbox could spend its budget at the end of one window and again at the start of the
 * next — twice the vendor's figure within one period, and the vendor's 429s. Here a refusal's wait is exact: until
 * the oldest units that make room leave the window.
 *
 * The log holds one entry per unit spent within the window (Outlook: one per request, at most 10,000 per mailbox).
 * With Redis it is a sorted set per mailbox, timed by Redis' own clock so replicas agree; without Redis — or while
 * Redis is not available — each replica keeps `1/replicas` of the budget in memory, and a charge never waits on
 * Redis longer than `redisTimeoutMs`, as for the fixed-window budget.
 */

/** Prunes, then admits `cost` units at Redis' time or answers the milliseconds until they would fit. */
const CHARGE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
if cost > limit then return window end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
if used + cost <= limit then
  for i = 1, cost do redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i) end
  redis.call('PEXPIRE', KEYS[1], window)
  return -1
end
local oldest = redis.call('ZRANGE', KEYS[1], used + cost - limit - 1, used + cost - limit - 1, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
`;

/** The in-memory log: per mailbox, the times of the units spent within the window, oldest first. */
function localLog(limit: number, windowMs: number, now: () => number) {
  const logs = new Map<string, number[]>();
  let sweptAt = now();
  return (key: string, cost: number): number | undefined => {
    const at = now();
    if (at - sweptAt > windowMs) {
      // Forget mailboxes idle for a whole window, at most once per window.
      for (const [k, times] of logs) if (times[times.length - 1]! <= at - windowMs) logs.delete(k);
      sweptAt = at;
    }
    if (cost > limit) return windowMs;
    const times = logs.get(key) ?? [];
    let expired = 0;
    while (expired < times.length && times[expired]! <= at - windowMs) expired++;
    if (expired > 0) times.splice(0, expired);
    if (times.length + cost <= limit) {
      for (let i = 0; i < cost; i++) times.push(at);
      logs.set(key, times);
      return undefined;
    }
    return Math.max(1, times[times.length + cost - limit - 1]! + windowMs - at);
  };
}

export function createSlidingQuota(settings: QuotaSettings, redis: SharedRedis | null, logger: Logger, now: () => number = Date.now): MailboxQuota {
  const windowMs = settings.windowS * 1000;
  const refused = (retryAfterMs: number): Charge => ({ ok: false, retryAfterMs, limit: settings.units, windowS: settings.windowS });
  const local = localLog(redis ? Math.max(1, Math.ceil(settings.units / settings.replicas)) : settings.units, windowMs, now);

  return {
    async charge(mailbox, units) {
      if (redis && redis.health.available()) {
        // Redis keys name no one: the mailbox address is hashed.
        const key = `hub:mailbox-log:${createHash('sha256').update(mailbox).digest('base64url').slice(0, 32)}`;
        const member = randomUUID(); // unique across replicas: two charges in one millisecond are two entries
        try {
          const wait = await redis.health.call(
            () => redis.client.eval(CHARGE_SCRIPT, 1, key, windowMs, settings.units, units, member) as Promise<number>,
            settings.redisTimeoutMs,
          );
          return wait < 0 ? { ok: true } : refused(wait);
        } catch (err) {
          if (!(err instanceof RedisUnavailableError)) logger.warn({ err }, 'the mailbox budget could not be charged in Redis; counting in this replica');
        }
      }
      const wait = local(mailbox, units);
      return wait === undefined ? { ok: true } : refused(wait);
    },
  };
}
