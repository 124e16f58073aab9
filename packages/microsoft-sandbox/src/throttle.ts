import type { World } from './world';
import { type GraphError, graphError } from './graph/errors';

/**
 * Outlook's limits per app and mailbox (learn.microsoft.com/graph/throttling-limits#outlook-service-limits):
 * "10,000 API requests in a 10 minute period" and "4 concurrent requests", for every app ID and mailbox pair.
 * Over either, 429 with Retry-After and `ApplicationThrottled` — "Application is over its MailboxConcurrency
 * limit." is the wording reported for concurrency (magodo/terraform-provider-outlook#21; learn.microsoft.com
 * Q&A 1660054); the wording for the request budget is not documented, so the sandbox names the budget the same
 * way. Throttled requests count against the budget too ("all requests accrue against your usage limits",
 * learn.microsoft.com/graph/throttling#best-practices-to-handle-throttling). The third documented limit, "150
 * megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period", answers "Application is over its IncomingBytes
 * limit." (the wording reported in O365/python-o365#500).
 */

export interface ThrottleLimits {
  requestsPerWindow: number;
  windowS: number;
  concurrent: number;
  /** Bytes of PATCH/POST/PUT bodies per `uploadWindowS`. */
  uploadBytes: number;
  uploadWindowS: number;
}

export const THROTTLE_PRESETS: Record<string, ThrottleLimits | null> = {
  /** Outlook's documented limits. */
  outlook: { requestsPerWindow: 10_000, windowS: 600, concurrent: 4, uploadBytes: 150 * 1024 * 1024, uploadWindowS: 300 },
  /** The same shape, small enough for a test or a demo to reach. */
  tight: { requestsPerWindow: 20, windowS: 600, concurrent: 4, uploadBytes: 1024 * 1024, uploadWindowS: 300 },
  /** Throttling off (never what Microsoft does; for benches that measure something else). */
  off: null,
};

interface Budget {
  times: number[];
  inflight: number;
  uploads: { at: number; bytes: number }[];
}

export interface ThrottleState {
  limits: ThrottleLimits | null;
  budgets: Map<string, Budget>;
}

export const createThrottleState = (): ThrottleState => ({ limits: THROTTLE_PRESETS.outlook!, budgets: new Map() });

/** Concurrency carries no documented Retry-After; reports show a few seconds, so a short one. */
const CONCURRENCY_RETRY_AFTER_S = 2;

/** Admits the request (returning its release) or answers why not. */
export function admit(world: World, clientId: string, mailboxUserId: string, uploadBytes = 0): { release: () => void } | GraphError {
  const limits = world.throttle.limits;
  if (!limits) return { release: () => undefined };
  const key = `${clientId}|${mailboxUserId}`;
  const budget = world.throttle.budgets.get(key) ?? { times: [], inflight: 0, uploads: [] };
  world.throttle.budgets.set(key, budget);
  const now = world.clock.now();
  const windowMs = limits.windowS * 1000;
  while (budget.times.length && budget.times[0]! <= now - windowMs) budget.times.shift();
  budget.times.push(now);
  if (budget.times.length > limits.requestsPerWindow) {
    const oldestCounted = budget.times[budget.times.length - 1 - limits.requestsPerWindow]!;
    const retryAfter = Math.max(1, Math.ceil((oldestCounted + windowMs - now) / 1000));
    return graphError(429, 'ApplicationThrottled', 'Application is over its MailboxRequests limit.', { 'Retry-After': String(retryAfter) });
  }
  if (uploadBytes > 0) {
    const uploadWindowMs = limits.uploadWindowS * 1000;
    budget.uploads = budget.uploads.filter((u) => u.at > now - uploadWindowMs);
    const sent = budget.uploads.reduce((n, u) => n + u.bytes, 0);
    if (sent + uploadBytes > limits.uploadBytes) {
      const retryAfter = Math.max(1, Math.ceil(((budget.uploads[0]?.at ?? now) + uploadWindowMs - now) / 1000));
      return graphError(429, 'ApplicationThrottled', 'Application is over its IncomingBytes limit.', { 'Retry-After': String(retryAfter) });
    }
    budget.uploads.push({ at: now, bytes: uploadBytes });
  }
  if (budget.inflight >= limits.concurrent)
    return graphError(429, 'ApplicationThrottled', 'Application is over its MailboxConcurrency limit.', { 'Retry-After': String(CONCURRENCY_RETRY_AFTER_S) });
  budget.inflight++;
  let released = false;
  return {
    release: () => {
      if (!released) budget.inflight--;
      released = true;
    },
  };
}
