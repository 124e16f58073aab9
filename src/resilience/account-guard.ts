import type { Logger } from '../logger';
import { createCooldowns } from '../protection/cooldowns';
import { type MailboxGate, createMailboxGate } from '../protection/mailbox-gate';
import { type MailboxQuota, createMailboxQuota } from '../protection/mailbox-quota';
import type { SharedRedis } from '../protection/rate-limit';
import { type SharedMailboxSlots, createSharedMailboxSlots } from '../protection/shared-mailbox-slots';
import { createSlidingQuota } from '../protection/sliding-quota';
import { type ClassifiedFailure, DeadlineExceededError, RefusedLocally } from './failures';
import { cooldownRefusal, mailboxBusy, quotaRefusal, uploadRefusal } from './guard-refusals';
import type { AccountBudget, VendorProfile } from './vendor-profile';

/**
 * What the Hub keeps per connected account before each attempt leaves, so agents stop at the Hub rather than at
 * the vendor: a running cool-down (the vendor named a time), the account's budget of cost units, its budget of
 * uploaded bytes (charged with the attempt's exact body size, so nothing leaves that the vendor would refuse), and its
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
  /** The attempt's body in bytes, for the account's upload budget. */
  uploadBytes?: number;
}

export interface AccountGuard {
  /**
   * Runs before an attempt: waits out a cool-down that ends within the deadline (or refuses), charges the account's
   * budget (Gmail units, Outlook requests) and its upload budget (the body's bytes), takes an in-flight slot. Returns the slot's release; throws RefusedLocally or DeadlineExceededError.
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

export interface GuardSettings {
  replicas: number;
  /** Longest a budget charge (or an in-flight slot's command) waits on Redis. */
  redisTimeoutMs: number;
  /** The longest one attempt can hold its in-flight slot (its timeout): a shared slot's lease outlasts it. */
  longestAttemptMs: number;
}

/** A shared slot's lease beyond the longest attempt: the release's own trip to Redis, a busy event loop. */
const LEASE_MARGIN_MS = 5_000;

export function createAccountGuard(
  vendors: readonly VendorProfile[],
  settings: GuardSettings,
  redis: SharedRedis | null,
  logger: Logger,
  now: () => number = Date.now,
): AccountGuard {
  const cooldowns = createCooldowns(now);
  const byIntegration = new Map(vendors.flatMap((vendor) => vendor.integrations.map((id) => [id, vendor] as const)));
  // One gate and one set of budgets per limit group, made on first use: integrations of a group share them.
  const gates = new Map<string, MailboxGate>();
  const sharedGates = new Map<string, SharedMailboxSlots>();
  const quotas = new Map<string, MailboxQuota>();
  /** A group's budget of `name` (requests, uploads), made on first use: integrations of the group share it. */
  const quotaOf = (group: string, name: string, budget: Pick<AccountBudget, 'units' | 'windowS' | 'window'>): MailboxQuota => {
    let quota = quotas.get(`${group}:${name}`);
    if (!quota) {
      const quotaSettings = { units: budget.units, windowS: budget.windowS, ...settings };
      quota =
        budget.window === 'sliding' ? createSlidingQuota({ ...quotaSettings, name }, redis, logger, now) : createMailboxQuota(quotaSettings, redis, logger);
      quotas.set(`${group}:${name}`, quota);
    }
    return quota;
  };
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
      const { budget, uploads, maxInFlight } = limits;
      if (budget) {
        const cost = budget.cost(op.operation);
        const charged = await quotaOf(limits.group, 'requests', budget).charge(key, cost);
        if (!charged.ok) throw new RefusedLocally(quotaRefusal(vendor.name, budget, op, cost, charged));
      }
      // After the request budget: a refusal here wastes one request of it, never a large body's bytes.
      const bytes = op.uploadBytes ?? 0;
      if (uploads && bytes > 0) {
        // Uploads are counted "in a 5 minute period" (any five minutes): always a sliding window.
        const charged = await quotaOf(limits.group, 'uploads', { units: uploads.bytes, windowS: uploads.windowS, window: 'sliding' }).charge(key, bytes);
        if (!charged.ok) throw new RefusedLocally(uploadRefusal(vendor.name, uploads, op, bytes, charged));
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
