import type { OutlookMailboxLimits } from '../../config';
import type { AccountLimits, VendorProfile } from '../../resilience/vendor-profile';
import { classifyGraphError } from './graph-errors';

/**
 * Microsoft as the resilience layer sees it: its failures read by classifyGraphError, and Outlook's per-mailbox
 * limits as configured (HUB_OUTLOOK_QUOTA_REQUESTS per HUB_OUTLOOK_QUOTA_WINDOW_S, HUB_OUTLOOK_MAX_IN_FLIGHT, and
 * HUB_OUTLOOK_UPLOAD_BYTES per HUB_OUTLOOK_UPLOAD_WINDOW_S; by default Microsoft's published 10,000 requests per 10
 * minutes, 4 concurrent and 150 MB of uploads per 5 minutes, per app and mailbox — limits.ts).
 * Graph counts calendar and mail requests of one mailbox against ONE budget, so outlook_calendar and outlook_mail
 * share one limit group: the Hub charges every attempt to the mailbox's budget and takes one of its in-flight slots
 * (both in Redis when REDIS_URL is set, so replicas share them) before it leaves, and an agent waits for a slot or
 * is told RATE_LIMITED with a true retry_after_s instead of meeting Graph's 429s. Each PATCH/POST/PUT attempt is
 * also charged its body's exact bytes (the adapters size the body they send: graph-request.ts) to the mailbox's
 * upload budget, so a busy agent's sends and event writes stop at the Hub before Graph's 429 IncomingBytes.
 */

/**
 * After Graph's own throttling answer without a Retry-After (it sends one on every 429 it documents, so this is the
 * rare case), how long the mailbox is held back: Graph's throttling guidance asks clients to back off before retrying.
 */
const QUOTA_COOLDOWN_MS = 60_000;

export function microsoftVendor(limits: OutlookMailboxLimits): VendorProfile {
  const mailbox: AccountLimits = {
    group: 'outlook_mailbox',
    budget: {
      name: 'Outlook request limit',
      unit: 'requests',
      units: limits.requestsPerWindow,
      windowS: limits.windowS,
      // Every request counts once, whatever it is (throttling-limits: "10,000 API requests in a 10-minute period").
      cost: () => 1,
      // "In a 10-minute period": any ten minutes, so the budget slides and can be Microsoft's own figure (a fixed
      // window would let twice it through across a window's end, and Graph would answer 429).
      window: 'sliding',
    },
    // "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period" per app and mailbox (throttling-limits):
    // the bodies of calendar and mail writes together, whichever replica sends them (Redis when set).
    uploads: { name: 'Outlook upload limit', bytes: limits.uploadBytesPerWindow, windowS: limits.uploadWindowS },
    maxInFlight: limits.maxInFlight,
    // "4 concurrent requests" per app and mailbox, whichever replica sends them: shared through Redis when set.
    sharedInFlight: true,
  };
  return {
    name: 'Microsoft',
    integrations: ['outlook_calendar', 'outlook_mail'],
    classify: classifyGraphError,
    limits: () => mailbox,
    quotaCooldownMs: QUOTA_COOLDOWN_MS,
  };
}
