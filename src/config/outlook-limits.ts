import { z } from 'zod';
import { type EnvOf, integer } from './variables';

/**
 * Outlook's limits per app and mailbox as the Hub enforces them before Graph does (part of the Microsoft section,
 * microsoft.ts). Microsoft publishes them per app ID and mailbox combination, for calendar and mail together
 * (learn.microsoft.com/graph/throttling-limits#outlook-service-limits): "10,000 API requests in a 10-minute period"
 * and "4 concurrent requests". The Hub may be set stricter — an app registration shared with another service, a
 * test that must reach the limit — but never looser: above the published figures every extra request can only
 * meet Graph's 429 ApplicationThrottled, which costs the mailbox more (throttled requests count too), so such a
 * value is refused rather than clamped.
 */
export const OUTLOOK_PUBLISHED_LIMITS = Object.freeze({
  /** Requests per app and mailbox in one window of `windowS`. */
  requests: 10_000,
  windowS: 600,
  /** Requests per app and mailbox in flight at once. */
  concurrent: 4,
});

export interface OutlookMailboxLimits {
  /** Requests one mailbox may make per window (calendar and mail together, every customer of the mailbox). */
  requestsPerWindow: number;
  windowS: number;
  /** Requests to one mailbox in flight at once (every replica together when Redis is set); more wait their turn. */
  maxInFlight: number;
}

/** The longest window the Hub keeps a budget for: an hour, as for Gmail's (HUB_GMAIL_QUOTA_WINDOW_S). */
const MAX_WINDOW_S = 3600;

/** A positive integer up to `max`; above it the refusal says it is Microsoft's published limit. */
const upToPublished = (def: number, max: number, what: string) =>
  z
    .string()
    .optional()
    .transform((s, ctx): number => {
      if (s === undefined || s.trim() === '') return def;
      const n = Number(s);
      if (!Number.isInteger(n) || n < 1) ctx.addIssue({ code: 'custom', message: `must be a positive integer (at most ${max})` });
      else if (n > max)
        ctx.addIssue({
          code: 'custom',
          message: `must be at most ${max}: Microsoft publishes ${what} per app and mailbox, and above that Graph only answers 429`,
        });
      else return n;
      return z.NEVER;
    });

const P = OUTLOOK_PUBLISHED_LIMITS;

export const outlookLimitVariables = {
  HUB_OUTLOOK_MAX_IN_FLIGHT: upToPublished(P.concurrent, P.concurrent, `${P.concurrent} concurrent requests`).describe(
    `Outlook requests in flight to one mailbox at once (calendar and mail together), across replicas through Redis when REDIS_URL is set, else per replica; more wait their turn within the deadline. At most Microsoft's ${P.concurrent}.`,
  ),
  HUB_OUTLOOK_QUOTA_REQUESTS: upToPublished(P.requests, P.requests, `${P.requests.toLocaleString('en')} requests per ${P.windowS / 60} minutes`).describe(
    `Graph requests one connected Outlook mailbox may make per window, calendar and mail together, charged before each request (shared by every customer of that mailbox). At most Microsoft's ${P.requests.toLocaleString('en')}, and no faster than ${P.requests.toLocaleString('en')} per ${P.windowS} s.`,
  ),
  HUB_OUTLOOK_QUOTA_WINDOW_S: integer(P.windowS, 1, MAX_WINDOW_S).describe(
    'The sliding window of HUB_OUTLOOK_QUOTA_REQUESTS, in seconds: every request counts for this long after it was sent.',
  ),
};

export type OutlookLimitsEnv = EnvOf<typeof outlookLimitVariables>;

/**
 * A budget over a shorter window must not be faster than Microsoft's: the window slides, so any 600 s hold at most
 * ⌈600 / windowS⌉ of its windows, and that many budgets must fit in Microsoft's 10,000 (100 per 6 s does, 101 does
 * not; 1,000 per 60 s does).
 */
export function outlookLimitProblems(e: OutlookLimitsEnv): string[] {
  const windows = Math.ceil(P.windowS / e.HUB_OUTLOOK_QUOTA_WINDOW_S);
  if (e.HUB_OUTLOOK_QUOTA_REQUESTS * windows <= P.requests) return [];
  return [
    `HUB_OUTLOOK_QUOTA_REQUESTS: at most ${P.requests.toLocaleString('en')} / ⌈${P.windowS} / HUB_OUTLOOK_QUOTA_WINDOW_S⌉ requests: Microsoft publishes ${P.requests.toLocaleString('en')} requests per ${P.windowS} s per app and mailbox, and a faster budget only meets Graph's 429`,
  ];
}

export const loadOutlookLimits = (e: OutlookLimitsEnv): OutlookMailboxLimits => ({
  requestsPerWindow: e.HUB_OUTLOOK_QUOTA_REQUESTS,
  windowS: e.HUB_OUTLOOK_QUOTA_WINDOW_S,
  maxInFlight: e.HUB_OUTLOOK_MAX_IN_FLIGHT,
});
