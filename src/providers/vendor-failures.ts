import { hubError } from '../core/errors';
import { type ClassifiedFailure, NEVER_SENT_CODES } from '../resilience/failures';

/**
 * What every provider's failure classifier (google/errors.ts, microsoft/graph-errors.ts) answers alike, in the
 * vendor's name: a request the vendor did not answer in time, a request that never reached it, the vendor's own
 * message made safe to show, and a wait in whole seconds.
 */

/** A vendor's message may quote the request: only this much of it is kept, scrubbed. */
const MESSAGE_MAX = 300;
/**
 * How much of a message is read: enough for MESSAGE_MAX after scrubbing, bounded in cost — the URL pattern
 * backtracks quadratically on a long run of "http://" (~39 ms for 16 KB). A secret cut at the edge still matches
 * its pattern (each stops at the first character outside it), so it is still redacted.
 */
const MESSAGE_SCAN = 2_000;

/**
 * The vendor's message, safe to show: no URL query strings, no credentials (bearer and basic ones, and each of
 * the vendor's own token shapes in `tokens`, global patterns), no control characters, at most 300 characters.
 */
export function safeVendorMessage(message: string, tokens: readonly RegExp[]): string {
  let scrubbed = message
    .slice(0, MESSAGE_SCAN)
    .replace(/\b(https?:\/\/[^\s?#"']+)[?#][^\s"']*/gi, '$1')
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]');
  for (const token of tokens) scrubbed = scrubbed.replace(token, '[redacted]');
  scrubbed = scrubbed.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return scrubbed.length > MESSAGE_MAX ? `${scrubbed.slice(0, MESSAGE_MAX - 1)}…` : scrubbed;
}

/** A wait in milliseconds as whole seconds, never 0 (a Retry-After of 0 would invite a tight loop). */
export const atLeastOneSecond = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.max(1, Math.ceil(ms / 1000)));

/** The vendor did not answer within the attempt's time: it may have acted, so only an idempotent request is repeated. */
export function timeoutFailure(vendor: string, what: string): ClassifiedFailure {
  return {
    kind: 'timeout',
    retryWhen: 'if_idempotent',
    upstreamFailure: true,
    error: hubError('EXTERNAL_API_ERROR', `${vendor} did not answer ${what} in time`, { retryable: true, details: { reason: 'timeout' } }),
  };
}

/**
 * The request did not get an answer from the vendor at all: a socket `code` that says it never left
 * (NEVER_SENT_CODES) may be repeated whatever it does; any other only when idempotent. The code is shown when it is
 * a plain identifier.
 */
export function networkFailure(vendor: string, what: string, code: string | undefined): ClassifiedFailure {
  const neverSent = code !== undefined && NEVER_SENT_CODES.has(code);
  return {
    kind: 'network',
    retryWhen: neverSent ? 'always' : 'if_idempotent',
    upstreamFailure: true,
    error: hubError('EXTERNAL_API_ERROR', `Could not reach ${vendor} for ${what}`, {
      retryable: true,
      details: { reason: 'network', ...(code && /^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(code) ? { code } : {}) },
    }),
  };
}
