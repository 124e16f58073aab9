import { z } from 'zod';
import { type EnvOf, integer } from './variables';

/**
 * Outlook's limits per app and mailbox as the Hub enforces them before Graph does (part of the Microsoft section,
 * microsoft.ts). Microsoft publishes them per app ID and mailbox combination, for calendar and mail together
 * (learn.microsoft.com/graph/throttling-limits#outlook-service-limits): "10,000 API requests in a 10-minute period",
 * "4 concurrent requests" and "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period". The Hub may be set stricter — an app registration shared with another service, a
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
  /**
   * Bytes of PATCH/POST/PUT bodies per app and mailbox in one window of `uploadWindowS`: "150 megabytes (MB)",
   * read as 150 × 1024 × 1024 as the Microsoft sandbox does (packages/microsoft-sandbox/src/throttle.ts).
   */
  uploadBytes: 150 * 1024 * 1024,
  uploadWindowS: 300,
});

export interface OutlookMailboxLimits {
  /** Requests one mailbox may make per window (calendar and mail together, every customer of the mailbox). */
  requestsPerWindow: number;
  windowS: number;
  /** Requests to one mailbox in flight at once (every replica together when Redis is set); more wait their turn. */
  maxInFlight: number;
  /** Bytes of PATCH/POST/PUT bodies one mailbox may send per upload window (calendar and mail together). */
  uploadBytesPerWindow: number;
  uploadWindowS: number;
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
  HUB_OUTLOOK_UPLOAD_BYTES: upToPublished(
    P.uploadBytes,
    P.uploadBytes,
    `150 MB (${P.uploadBytes} bytes) of uploads per ${P.uploadWindowS / 60} minutes`,
  ).describe(
    `Bytes of PATCH/POST/PUT request bodies (email drafts and replies, event writes) one connected Outlook mailbox may send to Graph per window, calendar and mail together, charged before each request. At most Microsoft's 150 MB (${P.uploadBytes}), and no faster than that per ${P.uploadWindowS} s.`,
  ),
  HUB_OUTLOOK_UPLOAD_WINDOW_S: integer(P.uploadWindowS, 1, MAX_WINDOW_S).describe(
    'The sliding window of HUB_OUTLOOK_UPLOAD_BYTES, in seconds: every request body counts for this long after it was sent.',
  ),
};

export type OutlookLimitsEnv = EnvOf<typeof outlookLimitVariables>;

/**
 * A budget over a shorter window must not be faster than Microsoft's: the window slides, so any 600 s hold at most
 * ⌈600 / windowS⌉ of its windows, and that many budgets must fit in Microsoft's 10,000 (100 per 6 s does, 101 does
 * not; 1,000 per 60 s does). The same holds for uploads against 150 MB per 300 s.
 */
export function outlookLimitProblems(e: OutlookLimitsEnv): string[] {
  const problems: string[] = [];
  if (e.HUB_OUTLOOK_QUOTA_REQUESTS * Math.ceil(P.windowS / e.HUB_OUTLOOK_QUOTA_WINDOW_S) > P.requests)
    problems.push(
      `HUB_OUTLOOK_QUOTA_REQUESTS: at most ${P.requests.toLocaleString('en')} / ⌈${P.windowS} / HUB_OUTLOOK_QUOTA_WINDOW_S⌉ requests: Microsoft publishes ${P.requests.toLocaleString('en')} requests per ${P.windowS} s per app and mailbox, and a faster budget only meets Graph's 429`,
    );
  if (e.HUB_OUTLOOK_UPLOAD_BYTES * Math.ceil(P.uploadWindowS / e.HUB_OUTLOOK_UPLOAD_WINDOW_S) > P.uploadBytes)
    problems.push(
      `HUB_OUTLOOK_UPLOAD_BYTES: at most ${P.uploadBytes} / ⌈${P.uploadWindowS} / HUB_OUTLOOK_UPLOAD_WINDOW_S⌉ bytes: Microsoft publishes 150 MB (${P.uploadBytes} bytes) of uploads per ${P.uploadWindowS} s per app and mailbox, and a faster budget only meets Graph's 429`,
    );
  return problems;
}

export const loadOutlookLimits = (e: OutlookLimitsEnv): OutlookMailboxLimits => ({
  requestsPerWindow: e.HUB_OUTLOOK_QUOTA_REQUESTS,
  windowS: e.HUB_OUTLOOK_QUOTA_WINDOW_S,
  maxInFlight: e.HUB_OUTLOOK_MAX_IN_FLIGHT,
  uploadBytesPerWindow: e.HUB_OUTLOOK_UPLOAD_BYTES,
  uploadWindowS: e.HUB_OUTLOOK_UPLOAD_WINDOW_S,
});
