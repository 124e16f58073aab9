import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import { RedisUnavailableError } from '../store/redis-health';
import type { Charge, MailboxQuota, QuotaSettings } from './mailbox-quota';
import type { SharedRedis } from './rate-limit';
import { createWeightedLog } from './weighted-log';

/**
 * A mailbox budget over a SLIDING window: at most `units` in any `windowS`, each charge counted from when it was
 * made until `windowS` later — as a vendor that counts "requests in a 10-minute period" or "150 megabytes (MB)
 * upload (PATCH, POST, PUT) in a 5 minute period" counts them (Outlook,
 * learn.microsoft.com/graph/throttling-limits#outlook-service-limits). A fixed window (mailbox-quota.ts) refills
 * at once when it ends, so a mailbox could spend its budget at the end of one window and again at the start of the
 * next — twice the vendor's figure within one period, and the vendor's 429s. Here a refusal's wait is exact: until
 * the oldest charges that make room leave the window.
 *
 * The log holds one entry per charge, weighted by its cost (1 per request; a body's bytes for uploads), beside a
 * running total, so a charge is amortized O(1) whatever it weighs (weighted-log.ts). With Redis it is a sorted set
 * per mailbox (the member carries its weight) and a total key, timed by Redis' own clock so replicas agree; without
 * Redis — or while Redis is not available — each replica keeps `1/replicas` of the budget in memory, and a charge
 * never waits on Redis longer than `redisTimeoutMs`, as for the fixed-window budget.
 */

export interface SlidingQuotaSettings extends QuotaSettings {
  /** Names the budget's Redis keys (`requests`, `uploads`): two budgets of one mailbox never share a log. */
  name: string;
}

/**
 * Drops what left the window (subtracting each entry's weight from the total), then admits `cost` at Redis' time
 * (-1), refuses a cost above the whole budget (-2), or answers the milliseconds until enough weight leaves. A missing
 * total (the first charge, an evicted key) is counted once from the log; both keys expire together with the newest
 * entry, and a refusal keeps their TTL. The wait walks the oldest entries in growing batches: usually the first
 * one or two make room. The walk stops after ARGV[5] entries — the script holds Redis for every customer, and a
 * mailbox's many small uploads must not make each refusal of a large one cost thousands of steps — and then answers
 * when the last entry it read leaves: not the exact wait but a true "not before", and the retry is told the next.
 */
const CHARGE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
if cost > limit then return -2 end
local function weight(member) return tonumber(string.match(member, ':(%d+)$')) or 1 end
local edge = now - window
local stored = redis.call('GET', KEYS[2])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', edge)
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', edge) end
local total = 0
if stored and redis.call('EXISTS', KEYS[1]) == 1 then
  total = tonumber(stored)
  for i = 1, #gone do total = total - weight(gone[i]) end
else
  local all = redis.call('ZRANGE', KEYS[1], 0, -1)
  for i = 1, #all do total = total + weight(all[i]) end
end
if total + cost <= limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. cost)
  redis.call('SET', KEYS[2], string.format('%d', total + cost), 'PX', window)
  redis.call('PEXPIRE', KEYS[1], window)
  return -1
end
if #gone > 0 then redis.call('SET', KEYS[2], string.format('%d', total), 'KEEPTTL') end
local need = total + cost - limit
local from, step = 0, 4
local walk = tonumber(ARGV[5])
while true do
  local batch = redis.call('ZRANGE', KEYS[1], from, from + step - 1, 'WITHSCORES')
  if #batch == 0 then return window end
  for i = 1, #batch, 2 do
    need = need - weight(batch[i])
    if need <= 0 then return math.max(1, tonumber(batch[i + 1]) + window - now) end
  end
  from, step = from + step, math.min(step * 4, 256)
  if from >= walk then return math.max(1, tonumber(batch[#batch]) + window - now) end
end
`;

/** The most entries one refusal reads in Redis to find its wait (about 1 ms of Redis time). */
export const LONGEST_WALK = 1024;

/** A mailbox's two keys: the address hashed (keys name no one), in one hash slot so the script may touch both. */
export function slidingQuotaKeys(name: string, mailbox: string): [log: string, total: string] {
  const log = `hub:mailbox-${name}:{${createHash('sha256').update(mailbox).digest('base64url').slice(0, 32)}}`;
  return [log, `${log}:total`];
}

export function createSlidingQuota(settings: SlidingQuotaSettings, redis: SharedRedis | null, logger: Logger, now: () => number = Date.now): MailboxQuota {
  const windowMs = settings.windowS * 1000;
  const refused = (retryAfterMs: number, neverFits: boolean): Charge => ({
    ok: false,
    retryAfterMs,
    limit: settings.units,
    windowS: settings.windowS,
    ...(neverFits ? { neverFits } : {}),
  });
  const local = createWeightedLog(redis ? Math.max(1, Math.ceil(settings.units / settings.replicas)) : settings.units, windowMs, now);

  return {
    async charge(mailbox, units) {
      // Whatever this replica's share, a charge above the whole budget can never be admitted anywhere.
      if (units > settings.units) return refused(windowMs, true);
      if (redis && redis.health.available()) {
        const member = randomUUID(); // unique across replicas: two charges in one millisecond are two entries
        try {
          const wait = await redis.health.call(
            () =>
              redis.client.eval(
                CHARGE_SCRIPT,
                2,
                ...slidingQuotaKeys(settings.name, mailbox),
                windowMs,
                settings.units,
                units,
                member,
                LONGEST_WALK,
              ) as Promise<number>,
            settings.redisTimeoutMs,
          );
          return wait === -1 ? { ok: true } : refused(wait < 0 ? windowMs : wait, wait < 0);
        } catch (err) {
          if (!(err instanceof RedisUnavailableError)) logger.warn({ err }, 'the mailbox budget could not be charged in Redis; counting in this replica');
        }
      }
      // Above this replica's share but within the whole budget, it fits again once Redis is back: never "never".
      const answer = local.charge(mailbox, units);
      return answer.ok ? answer : refused(answer.waitMs, false);
    },
  };
}
