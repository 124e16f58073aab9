import { type IExponentialBackoffOptions, fullJitterGenerator, noJitterGenerator } from 'cockatiel';

/**
 * Capped exponential backoff with full jitter (cockatiel's generators): before retry number `retryIndex`
 * (0 for the first retry) the wait is uniform in [0, min(cap, base·2^retryIndex)). Google's Retry-After, when
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

/** The wait before retry `retryIndex`: the jittered backoff, or Google's Retry-After when that is longer. */
export function retryWaitMs(retryIndex: number, retryAfterMs: number | undefined, settings: BackoffSettings): number {
  return Math.max(jitteredBackoffMs(retryIndex, settings), retryAfterMs ?? 0);
}
