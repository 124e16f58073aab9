import { type HubError, hubError } from '../core/errors';
import type { Cooldown } from '../protection/cooldowns';
import type { AccountBudget, UploadBudget } from './vendor-profile';

/**
 * What the account guard (account-guard.ts) answers when it holds a call back before it leaves: RATE_LIMITED with
 * the true time until the account has room (`retry_after_s`, also Retry-After) and `details` that say which of the
 * account's limits it was. Every such answer is RefusedLocally, so metrics count it as `refused_locally` and the
 * receipt records the refusal like any other failed call.
 */

/** An operation as refusals name it. */
interface Named {
  operation: string;
}

interface Refusal {
  retryAfterMs: number;
  limit: number;
  windowS: number;
  neverFits?: boolean;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function cooldownRefusal(vendor: string, op: Named, cooldown: Cooldown, now: number): HubError {
  const until = new Date(cooldown.until).toISOString();
  return hubError('RATE_LIMITED', `${vendor} limited this account until ${until}; ${op.operation} was not sent to ${vendor}`, {
    retryable: true,
    retryAfterS: Math.max(1, Math.ceil((cooldown.until - now) / 1000)),
    details: { scope: cooldown.limit, reason: cooldown.reason, cooldown_until: until },
  });
}

export function quotaRefusal(vendor: string, budget: AccountBudget, op: Named, cost: number, refusal: Refusal): HubError {
  return hubError(
    'RATE_LIMITED',
    `This mailbox's ${budget.name} (${refusal.limit} ${budget.unit} per ${refusal.windowS} s) is spent; ${op.operation} was not sent to ${vendor}`,
    {
      retryable: true,
      retryAfterS: seconds(refusal.retryAfterMs),
      details: { scope: 'upstream_quota', reason: 'mailbox_quota', limit: refusal.limit, window_s: refusal.windowS, cost },
    },
  );
}

/**
 * The upload budget is spent: RATE_LIMITED until enough of the window's bytes have left it. A body larger than the
 * whole budget can never be sent, whatever the wait: not retryable, and no retry_after_s to wait for.
 */
export function uploadRefusal(vendor: string, budget: UploadBudget, op: Named, bytes: number, refusal: Refusal): HubError {
  const details = { scope: 'upstream_quota', reason: 'mailbox_upload_quota', limit: refusal.limit, window_s: refusal.windowS, cost: bytes };
  const limit = `${budget.name} (${refusal.limit} bytes per ${refusal.windowS} s)`;
  if (refusal.neverFits)
    return hubError('RATE_LIMITED', `${op.operation} carries ${bytes} bytes, more than this mailbox's whole ${limit}; it was not sent to ${vendor}`, {
      retryable: false,
      details,
    });
  return hubError('RATE_LIMITED', `This mailbox's ${limit} is spent; ${op.operation} (${bytes} bytes) was not sent to ${vendor}`, {
    retryable: true,
    retryAfterS: seconds(refusal.retryAfterMs),
    details,
  });
}

export function mailboxBusy(vendor: string, op: Named): HubError {
  return hubError('RATE_LIMITED', `Too many requests are waiting for this mailbox; ${op.operation} was not sent to ${vendor}`, {
    retryable: true,
    retryAfterS: 1,
    details: { scope: 'upstream_quota', reason: 'mailbox_busy' },
  });
}
