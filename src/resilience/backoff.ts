import { type IExponentialBackoffOptions, fullJitterGenerator, noJitterGenerator } from 'cockatiel';

/**
 * Capped exponential backoff with full jitter (cockatiel's generators): before retry number `retryIndex`
 * (0 for the first retry) the wait is uniform in [0, min(cap, base·2^retryIndex)). The vendor's Retry-After, when
 * longer, wins: the wait is max(jittered backoff, Retry-After).
 */

export interface BackoffSettings {
  retryBaseMs: number;
  retryMaxMs: number;
}

const generatorOptions = (s: BackoffSettings): IExponentialBackoffOptions<number> => ({
  generator: fullJitterGenerator,
  initialDelay: s.retryBaseMs,
  maxDelay: s.retryMaxMs,
  exponent: 2,
});

/** The upper bound of the jittered wait before retry `retryIndex` (0-based): min(cap, base·2^retryIndex). */
export function backoffCeilingMs(retryIndex: number, settings: BackoffSettings): number {
  return noJitterGenerator(retryIndex, generatorOptions(settings))[0];
}

/** A full-jitter draw for retry `retryIndex` (0-based), in [0, backoffCeilingMs). */
export function jitteredBackoffMs(retryIndex: number, settings: BackoffSettings): number {
  return fullJitterGenerator(retryIndex, generatorOptions(settings))[0];
}

/** The wait before retry `retryIndex`: the jittered backoff, or the vendor's Retry-After when that is longer. */
export function retryWaitMs(retryIndex: number, retryAfterMs: number | undefined, settings: BackoffSettings): number {
  return Math.max(jitteredBackoffMs(retryIndex, settings), retryAfterMs ?? 0);
}

/**
 * After a rate limit (429, 403 rate limits) Google's algorithm waits "1 + random_number_milliseconds" seconds
 * before the first retry — at least one second (Google Workspace usage limits, "Example algorithm", e.g.
 * https://developers.google.com/workspace/slides/limits; Google's own .NET client backs off 1, 2, 4… s,
 * Google.Apis.Util.ExponentialBackOff). Gmail's and Calendar's error guides point to the same exponential backoff.
 */
export const RATE_LIMIT_MIN_WAIT_MS = 1000;

/** The wait before retrying a rate-limited request: at least a second plus the jittered backoff, or the vendor's own wait. */
export function rateLimitWaitMs(retryIndex: number, retryAfterMs: number | undefined, settings: BackoffSettings): number {
  return Math.max(RATE_LIMIT_MIN_WAIT_MS + jitteredBackoffMs(retryIndex, settings), retryAfterMs ?? 0);
}
