import { createHash } from 'node:crypto';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../logger';
import { RedisUnavailableError } from '../store/redis-health';
import type { SharedRedis } from './rate-limit';

/**
 * Gmail's per-user quota, kept by the Hub before it calls Google: every request costs the units Google's quota
 * page lists for its method, and one connected account (mailbox) may spend `units` per `windowS`, whichever
 * customers share it. With Redis the budget is shared by every replica; without Redis — or while Redis is not
 * available (disconnected, or its breaker open: src/store/redis-health.ts) — each replica keeps `1/replicas` of
 * it in memory, and a charge never waits on Redis longer than `redisTimeoutMs` (past it, memory decides that
 * charge and the breaker probes Redis), as for the Hub's own rate limits.
 *
 * Windows are fixed (they start at a mailbox's first request), so in any sliding minute a mailbox can spend up
 * to twice the budget: the default (3,000 per 60 s) is therefore half of Google's per-user figure (6,000 units
 * per minute per user, Gmail "Usage limits", https://developers.google.com/workspace/gmail/api/reference/quota),
 * which Google measures over a sliding window.
 */

export interface QuotaSettings {
  units: number;
  windowS: number;
  replicas: number;
  /** Longest a charge waits on Redis. */
  redisTimeoutMs: number;
}

export type Charge =
  | { ok: true }
  /** `neverFits`: the charge alone is more than the whole budget — waiting cannot help (retryAfterMs is then the window). */
  | { ok: false; retryAfterMs: number; limit: number; windowS: number; neverFits?: boolean };

export interface MailboxQuota {
  charge(mailbox: string, units: number): Promise<Charge>;
}

/**
 * Google's per-method costs (Gmail "Usage limits", per-method quota usage), by method id without `gmail.users.`.
 * The sandbox keeps its own table (packages/google-sandbox/src/quotas.ts) on purpose: it plays Google, so a wrong belief here
 * must show up as Google's 429 in the tests, not be shared by both sides.
 */
export const GMAIL_QUOTA_COSTS: Readonly<Record<string, number>> = {
  getProfile: 1,
  'labels.get': 1,
  'labels.list': 1,
  'history.list': 2,
  'messages.get': 5,
  'messages.list': 5,
  'messages.modify': 5,
  'messages.trash': 5,
  'messages.untrash': 5,
  'messages.attachments.get': 5,
  'messages.delete': 10,
  'messages.insert': 25,
  'messages.import': 25,
  'messages.batchModify': 50,
  'messages.batchDelete': 50,
  'messages.send': 100,
  'drafts.get': 5,
  'drafts.list': 5,
  'drafts.create': 10,
  'drafts.update': 15,
  'drafts.send': 100,
  'threads.get': 10,
  'threads.list': 10,
  'threads.modify': 10,
  'threads.trash': 10,
};
/** A method missing from the table costs what most reads cost. */
const DEFAULT_COST = 5;

/** Units one request of `operation` (`gmail.users.messages.get`) costs, overrides first. */
export function gmailUnitCost(operation: string, overrides: Readonly<Record<string, number>> = {}): number {
  const method = operation.startsWith('gmail.users.') ? operation.slice('gmail.users.'.length) : operation;
  return overrides[method] ?? GMAIL_QUOTA_COSTS[method] ?? DEFAULT_COST;
}

export function createMailboxQuota(settings: QuotaSettings, redis: SharedRedis | null, logger: Logger): MailboxQuota {
  const local = new RateLimiterMemory({
    keyPrefix: 'gmail-units',
    points: redis ? Math.max(1, Math.ceil(settings.units / settings.replicas)) : settings.units,
    duration: settings.windowS,
  });
  const shared: RateLimiterAbstract | null = redis
    ? new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix: 'hub:gmail-units',
        points: settings.units,
        duration: settings.windowS,
        rejectIfRedisNotReady: true,
      })
    : null;

  const consume = async (limiter: RateLimiterAbstract, key: string, units: number): Promise<Charge> => {
    try {
      await limiter.consume(key, units);
      return { ok: true };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { ok: false, retryAfterMs: Math.max(1, err.msBeforeNext), limit: settings.units, windowS: settings.windowS };
      throw err;
    }
  };

  return {
    async charge(mailbox, units) {
      if (redis && shared && redis.health.available()) {
        // Redis keys name no one: the mailbox address is hashed.
        const key = createHash('sha256').update(mailbox).digest('base64url').slice(0, 32);
        try {
          return await redis.health.call(() => consume(shared, key, units), settings.redisTimeoutMs);
        } catch (err) {
          if (!(err instanceof RedisUnavailableError)) logger.warn({ err }, 'the Gmail quota budget could not be charged in Redis; counting in this replica');
        }
      }
      return consume(local, mailbox, units);
    },
  };
}
