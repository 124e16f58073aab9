import type { UpstreamConfig } from '../config';
import { type HubError, hubError } from '../core/errors';
import type { Logger } from '../logger';
import { type Cooldown, createCooldowns } from '../protection/cooldowns';
import { createMailboxGate } from '../protection/mailbox-gate';
import { type MailboxQuota, createMailboxQuota, gmailUnitCost } from '../protection/mailbox-quota';
import type { SharedRedis } from '../protection/rate-limit';
import { type ClassifiedFailure, DeadlineExceededError, RefusedLocally } from './classify';

/**
 * What the Hub keeps per connected Google account before each attempt leaves, so agents stop at the Hub rather
 * than at Google: a running cool-down (Google named a time), the mailbox's Gmail unit budget, and its in-flight
 * cap. After each failed attempt it starts the cool-downs Google's answer asks for.
 */

/** Whose call this is: the connection (its circuit) and the Google account behind it (quotas, cool-downs). */
export interface Tenant {
  connectionId: string;
  /** The connected Google account (mailbox); null when unknown — the connection then stands for it. */
  account: string | null;
  /** Fair turns at a busy mailbox are per customer. */
  customerId: string;
}

export interface GuardedOp {
  integration: string;
  operation: string;
}

export interface AccountGuard {
  /**
   * Runs before an attempt: waits out a cool-down that ends within the deadline (or refuses), charges the Gmail
   * units, takes an in-flight slot. Returns the slot's release; throws RefusedLocally or DeadlineExceededError.
   */
  beforeAttempt(op: GuardedOp, tenant: Tenant, deadline: AbortSignal, deadlineAt: number): Promise<() => void>;
  /** After a failed attempt: starts the cool-down Google's answer asks for, if any. */
  afterFailure(op: GuardedOp, tenant: Tenant, failure: ClassifiedFailure): void;
}

const accountKey = (op: GuardedOp, tenant: Tenant) => `${op.integration}:${tenant.account?.toLowerCase() ?? `connection:${tenant.connectionId}`}`;
const noop = () => undefined;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DeadlineExceededError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function cooldownRefusal(op: GuardedOp, cooldown: Cooldown, now: number): HubError {
  const until = new Date(cooldown.until).toISOString();
  return hubError('RATE_LIMITED', `Google limited this account until ${until}; ${op.operation} was not sent to Google`, {
    retryable: true,
    retryAfterS: Math.max(1, Math.ceil((cooldown.until - now) / 1000)),
    details: { scope: cooldown.limit, reason: cooldown.reason, cooldown_until: until },
  });
}

function quotaRefusal(op: GuardedOp, cost: number, refusal: { retryAfterMs: number; limit: number; windowS: number }): HubError {
  return hubError(
    'RATE_LIMITED',
    `This mailbox's Gmail quota (${refusal.limit} units per ${refusal.windowS} s) is spent; ${op.operation} was not sent to Google`,
    {
      retryable: true,
      retryAfterS: Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)),
      details: { scope: 'upstream_quota', reason: 'mailbox_quota', limit: refusal.limit, window_s: refusal.windowS, cost },
    },
  );
}

export function createAccountGuard(config: UpstreamConfig, redis: SharedRedis | null, logger: Logger, now: () => number = Date.now): AccountGuard {
  const cooldowns = createCooldowns(now);
  const gate = createMailboxGate(config.gmail.maxInFlight);
  const quota: MailboxQuota = createMailboxQuota(
    { units: config.gmail.quotaUnits, windowS: config.gmail.quotaWindowS, replicas: config.replicas, redisTimeoutMs: config.redisTimeoutMs },
    redis,
    logger,
  );

  return {
    async beforeAttempt(op, tenant, deadline, deadlineAt) {
      const key = accountKey(op, tenant);
      const cooldown = cooldowns.covering(key, op.operation);
      if (cooldown) {
        // Ends before the deadline: wait it out like a Retry-After; otherwise answer now, without Google.
        if (cooldown.until >= deadlineAt) throw new RefusedLocally(cooldownRefusal(op, cooldown, now()));
        await sleep(cooldown.until - now(), deadline);
      }
      if (op.integration !== 'google_gmail') return noop;
      const cost = gmailUnitCost(op.operation, config.gmail.quotaCosts);
      const charged = await quota.charge(key, cost);
      if (!charged.ok) throw new RefusedLocally(quotaRefusal(op, cost, charged));
      const slot = await gate.acquire(key, tenant.customerId, deadline);
      if (slot.ok) return slot.release;
      if (slot.reason === 'deadline') throw new DeadlineExceededError();
      throw new RefusedLocally(
        hubError('RATE_LIMITED', `Too many requests are waiting for this mailbox; ${op.operation} was not sent to Google`, {
          retryable: true,
          retryAfterS: 1,
          details: { scope: 'upstream_quota', reason: 'mailbox_busy' },
        }),
      );
    },

    afterFailure(op, tenant, failure) {
      const at = now();
      if (failure.kind === 'quota_exceeded') {
        cooldowns.start(accountKey(op, tenant), {
          until: at + config.calendarQuotaCooldownMs,
          scope: 'writes',
          reason: failure.reason ?? 'quotaExceeded',
          limit: 'upstream_quota',
        });
      } else if (failure.kind === 'rate_limited' && failure.retryAfterMs !== undefined && failure.retryAfterMs > 0) {
        const scope = failure.sendingLimit ? 'send' : 'all';
        cooldowns.start(accountKey(op, tenant), { until: at + failure.retryAfterMs, scope, reason: failure.reason ?? 'rateLimitExceeded', limit: 'upstream' });
      }
    },
  };
}
