import type { AccountLimits, VendorProfile } from '../../resilience/vendor-profile';
import { classifyGraphError } from './graph-errors';
import { OUTLOOK_MAILBOX_LIMITS } from './limits';

/**
 * Microsoft as the resilience layer sees it: its failures read by classifyGraphError, and Outlook's per-mailbox
 * limits (limits.ts: 10,000 requests per 10 minutes and 4 concurrent, per app and mailbox). Graph counts calendar
 * and mail requests of one mailbox against ONE budget, so outlook_calendar and outlook_mail share one limit group:
 * the Hub charges every attempt to the mailbox's counters (in Redis when REDIS_URL is set, so replicas share them)
 * before it leaves, and an agent waits for a slot or is told RATE_LIMITED with a true retry_after_s instead of
 * meeting Graph's 429s. The upload budget (150 MB per 5 minutes) is not enforced: no tool uploads attachments.
 */

const limitOf = (what: 'requests' | 'concurrent_requests') => {
  const found = OUTLOOK_MAILBOX_LIMITS.find((l) => l.what === what);
  if (!found) throw new Error(`limits.ts names no Outlook ${what} limit`);
  return found;
};

/**
 * After Graph's own throttling answer without a Retry-After (it sends one on every 429 it documents, so this is the
 * rare case), how long the mailbox is held back: Graph's throttling guidance asks clients to back off before retrying.
 */
const QUOTA_COOLDOWN_MS = 60_000;

export function microsoftVendor(): VendorProfile {
  const requests = limitOf('requests');
  const concurrent = limitOf('concurrent_requests');
  const mailbox: AccountLimits = {
    group: 'outlook_mailbox',
    budget: {
      name: 'Outlook request limit',
      unit: 'requests',
      units: requests.limit,
      windowS: requests.windowS!,
      // Every request counts once, whatever it is (throttling-limits: "10,000 API requests in a 10-minute period").
      cost: () => 1,
    },
    maxInFlight: concurrent.limit,
  };
  return {
    name: 'Microsoft',
    integrations: ['outlook_calendar', 'outlook_mail'],
    classify: classifyGraphError,
    limits: () => mailbox,
    quotaCooldownMs: QUOTA_COOLDOWN_MS,
  };
}
