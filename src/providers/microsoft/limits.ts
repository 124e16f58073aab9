import { OUTLOOK_PUBLISHED_LIMITS } from '../../config';

/**
 * Outlook's limits on one application's use of one mailbox, as data for the resilience layer to enforce before
 * Graph does (Graph answers 429 ApplicationThrottled / MailboxConcurrency with Retry-After, and throttled requests
 * count against the budget too).
 *
 * Source: learn.microsoft.com/graph/throttling-limits, "Outlook service limits": "These limits apply to the
 * following resources: … event, calendar, mailFolder, message, … mailboxSettings" — limits are "per app ID and
 * mailbox combination". So calendar and mail requests of one mailbox draw on ONE budget: the calendar adapter and
 * the mail adapter of a connection must be charged to the same counters, and a second customer connecting the same
 * mailbox through the Hub's app shares them as well. The figures are the configuration's ceilings
 * (src/config/outlook-limits.ts: HUB_OUTLOOK_QUOTA_REQUESTS, HUB_OUTLOOK_MAX_IN_FLIGHT and HUB_OUTLOOK_UPLOAD_BYTES
 * may only be lower).
 */

export interface MailboxLimit {
  /** What the limit counts. */
  what: 'requests' | 'concurrent_requests' | 'upload_bytes';
  /** The most allowed in one window (for concurrent requests: at once). */
  limit: number;
  /** The window's length in seconds; null for a concurrency cap. */
  windowS: number | null;
  source: string;
}

const OUTLOOK_LIMITS_PAGE = 'https://learn.microsoft.com/graph/throttling-limits#outlook-service-limits';

export const OUTLOOK_MAILBOX_LIMITS: readonly MailboxLimit[] = Object.freeze([
  {
    what: 'requests',
    limit: OUTLOOK_PUBLISHED_LIMITS.requests,
    windowS: OUTLOOK_PUBLISHED_LIMITS.windowS,
    source: `${OUTLOOK_LIMITS_PAGE}: 10,000 API requests in a 10-minute period`,
  },
  { what: 'concurrent_requests', limit: OUTLOOK_PUBLISHED_LIMITS.concurrent, windowS: null, source: `${OUTLOOK_LIMITS_PAGE}: 4 concurrent requests` },
  {
    what: 'upload_bytes',
    limit: OUTLOOK_PUBLISHED_LIMITS.uploadBytes,
    windowS: OUTLOOK_PUBLISHED_LIMITS.uploadWindowS,
    source: `${OUTLOOK_LIMITS_PAGE}: 150 megabytes (MB) upload (PATCH, POST, PUT) in a 5-minute period`,
  },
]);
