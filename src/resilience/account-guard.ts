import { type HubError, hubError } from '../core/errors';
import type { Logger } from '../logger';
import { type Cooldown, createCooldowns } from '../protection/cooldowns';
import { type MailboxGate, createMailboxGate } from '../protection/mailbox-gate';
import { type MailboxQuota, createMailboxQuota } from '../protection/mailbox-quota';
import type { SharedRedis } from '../protection/rate-limit';
import { type SharedMailboxSlots, createSharedMailboxSlots } from '../protection/shared-mailbox-slots';
import { createSlidingQuota } from '../protection/sliding-quota';
import { type ClassifiedFailure, DeadlineExceededError, RefusedLocally } from './failures';
import type { AccountBudget, VendorProfile } from './vendor-profile';

/**
 * What the Hub keeps per connected account before each attempt leaves, so agents stop at the Hub rather than at
 * the vendor: a running cool-down (the vendor named a time), the account's budget of cost units, and its
 * in-flight cap — each as the provider's limits say (vendor-profile.ts). After each failed attempt it starts the
 * cool-downs the vendor's answer asks for.
 */

/** Whose call this is: the connection (its circuit) and the account behind it (quotas, cool-downs). */
export interface Tenant {
  connectionId: string;
  /** The connected account (mailbox); null when unknown — the connection then stands for it. */
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
  /** After a failed attempt: starts the cool-down the vendor's answer asks for, if any. */
  afterFailure(op: GuardedOp, tenant: Tenant, failure: ClassifiedFailure): void;
}

const accountKey = (group: string, tenant: Tenant) => `${group}:${tenant.account?.toLowerCase() ?? `connection:${tenant.connectionId}`}`;
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

function cooldownRefusal(vendor: string, op: GuardedOp, cooldown: Cooldown, now: number): HubError {
  const until = new Date(cooldown.until).toISOString();
  return hubError('RATE_LIMITED', `${vendor} limited this account until ${until}; ${op.operation} was not sent to ${vendor}`, {
    retryable: true,
    retryAfterS: Math.max(1, Math.ceil((cooldown.until - now) / 1000)),
    details: { scope: cooldown.limit, reason: cooldown.reason, cooldown_until: until },
  });
}

function quotaRefusal(
  vendor: string,
  budget: AccountBudget,
  op: GuardedOp,
  cost: number,
  refusal: { retryAfterMs: number; limit: number; windowS: number },
): HubError {
  return hubError(
    'RATE_LIMITED',
    `This mailbox's ${budget.name} (${refusal.limit} ${budget.unit} per ${refusal.windowS} s) is spent; ${op.operation} was not sent to ${vendor}`,
    {
      retryable: true,
      retryAfterS: Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)),
      details: { scope: 'upstream_quota', reason: 'mailbox_quota', limit: refusal.limit, window_s: refusal.windowS, cost },
    },
  );
}

export interface GuardSettings {
  replicas: number;
  /** Longest a budget charge (or an in-flight slot's command) waits on Redis. */
  redisTimeoutMs: number;
  /** The longest one attempt can hold its in-flight slot (its timeout): a shared slot's lease outlasts it. */
  longestAttemptMs: number;
}

/** A shared slot's lease beyond the longest attempt: the release's own trip to Redis, a busy event loop. */
const LEASE_MARGIN_MS = 5_000;

function mailboxBusy(vendor: string, op: GuardedOp): HubError {
  return hubError('RATE_LIMITED', `Too many requests are waiting for this mailbox; ${op.operation} was not sent to ${vendor}`, {
    retryable: true,
    retryAfterS: 1,
    details: { scope: 'upstream_quota', reason: 'mailbox_busy' },
  });
}

export function createAccountGuard(
  vendors: readonly VendorProfile[],
  settings: GuardSettings,
  redis: SharedRedis | null,
  logger: Logger,
  now: () => number = Date.now,
): AccountGuard {
  const cooldowns = createCooldowns(now);
  const byIntegration = new Map(vendors.flatMap((vendor) => vendor.integrations.map((id) => [id, vendor] as const)));
  // One gate and one budget per limit group, made on first use: integrations of a group share them.
  const gates = new Map<string, MailboxGate>();
  const sharedGates = new Map<string, SharedMailboxSlots>();
  const quotas = new Map<string, MailboxQuota>();
  const vendorOf = (op: GuardedOp): VendorProfile => {
    const vendor = byIntegration.get(op.integration);
    if (!vendor) throw new Error(`no vendor profile guards the integration ${op.integration}`);
    return vendor;
  };

  return {
    async beforeAttempt(op, tenant, deadline, deadlineAt) {
      const vendor = vendorOf(op);
      const limits = vendor.limits(op.integration);
      const key = accountKey(limits.group, tenant);
      const cooldown = cooldowns.covering(key, op.operation);
      if (cooldown) {
        // Ends before the deadline: wait it out like a Retry-After; otherwise answer now, without the vendor.
        if (cooldown.until >= deadlineAt) throw new RefusedLocally(cooldownRefusal(vendor.name, op, cooldown, now()));
        await sleep(cooldown.until - now(), deadline);
      }
      const { budget, maxInFlight } = limits;
      if (budget) {
        let quota = quotas.get(limits.group);
        if (!quota) {
          const quotaSettings = { units: budget.units, windowS: budget.windowS, ...settings };
          quota = budget.window === 'sliding' ? createSlidingQuota(quotaSettings, redis, logger, now) : createMailboxQuota(quotaSettings, redis, logger);
          quotas.set(limits.group, quota);
        }
        const cost = budget.cost(op.operation);
        const charged = await quota.charge(key, cost);
        if (!charged.ok) throw new RefusedLocally(quotaRefusal(vendor.name, budget, op, cost, charged));
      }
      if (maxInFlight === undefined) return noop;
      let gate = gates.get(limits.group);
      if (!gate) {
        gate = createMailboxGate(maxInFlight);
        gates.set(limits.group, gate);
      }
      const slot = await gate.acquire(key, tenant.customerId, deadline);
      if (!slot.ok) {
        if (slot.reason === 'deadline') throw new DeadlineExceededError();
        throw new RefusedLocally(mailboxBusy(vendor.name, op));
      }
      if (!limits.sharedInFlight || !redis) return slot.release;
      // This replica's slot first, then one of the mailbox's slots across replicas; without Redis, this one alone.
      let shared = sharedGates.get(limits.group);
      if (!shared) {
        const leaseMs = settings.longestAttemptMs + LEASE_MARGIN_MS;
        shared = createSharedMailboxSlots({ limit: maxInFlight, leaseMs, redisTimeoutMs: settings.redisTimeoutMs }, redis, logger);
        sharedGates.set(limits.group, shared);
      }
      const everywhere = await shared.acquire(key, deadline);
      if (everywhere.ok) {
        return () => {
          everywhere.release();
          slot.release();
        };
      }
      if (everywhere.reason === 'unavailable') return slot.release;
      slot.release();
      throw new DeadlineExceededError();
    },

    afterFailure(op, tenant, failure) {
      const at = now();
      const vendor = vendorOf(op);
      const key = accountKey(vendor.limits(op.integration).group, tenant);
      if (failure.kind === 'quota_exceeded') {
        cooldowns.start(key, {
          until: at + vendor.quotaCooldownMs,
          scope: 'writes',
          reason: failure.reason ?? 'quotaExceeded',
          limit: 'upstream_quota',
        });
      } else if (failure.kind === 'rate_limited' && failure.retryAfterMs !== undefined && failure.retryAfterMs > 0) {
        const scope = failure.sendingLimit ? 'send' : 'all';
        cooldowns.start(key, { until: at + failure.retryAfterMs, scope, reason: failure.reason ?? 'rateLimitExceeded', limit: 'upstream' });
      }
    },
  };
}
