import { TaskCancelledError } from 'cockatiel';
import { GaxiosError } from 'gaxios';
import { hubError } from '../../core/errors';
import { type ClassifiedFailure, type ClassifyOptions, DeadlineExceededError, RefusedLocally, errorCode, retryAfterSeconds } from '../../resilience/failures';
import { atLeastOneSecond, networkFailure, safeVendorMessage, timeoutFailure as vendorTimeout } from '../vendor-failures';

/**
 * The one mapping from whatever a googleapis call threw to the Hub's vocabulary: which HubError it becomes,
 * whether repeating it may help (and for which operations), and whether it is evidence that Google is down
 * (the circuit breaker). Pure: unit-tested as a table.
 *
 * Never copied into an error: `err.message` (gaxios puts the request URL, query string included, in it for
 * network errors), `err.config` and any header. Google's own error message is the only upstream text kept,
 * scrubbed and truncated.
 */

const ABORT_CODES: ReadonlySet<string> = new Set(['AbortError', 'TimeoutError', 'ABORT_ERR']);
export const RATE_LIMIT_REASONS: ReadonlySet<string> = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);
const SCOPE_REASONS: ReadonlySet<string> = new Set(['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT']);
/**
 * Calendar's 403 "Calendar usage limits exceeded." (reason quotaExceeded, domain usageLimits): the calendar is
 * read-only for hours — repeating it within a tool call cannot help. Calendar API "Handle API errors"
 * (https://developers.google.com/workspace/calendar/api/guides/errors) and "Avoid Calendar use limits"
 * (https://support.google.com/a/answer/2905486).
 */
const QUOTA_REASONS: ReadonlySet<string> = new Set(['quotaExceeded']);
/** Google's own token shapes: access tokens (ya29.…) and refresh tokens (1//…). */
const GOOGLE_TOKENS = [/\bya29\.[A-Za-z0-9._-]+/g, /\b1\/\/[A-Za-z0-9._-]{10,}/g];
/** Longest wait read from Google's message that the Hub honours: a garbled far-future date must not park an account. */
const MAX_MESSAGE_RETRY_MS = 24 * 3600_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

// Gmail's rate-limit bodies name the moment the limit lifts in `error.message`, e.g. "User-rate limit exceeded.
// Retry after 2026-09-11T20:00:00.000Z" (sending limits: "… (Mail sending)"), with no Retry-After header.
// Gmail "Resolve errors" (https://developers.google.com/workspace/gmail/api/guides/handle-errors, 429: "returned
// with time to retry"), and public reports: bettergov/foiamail#36, twentyhq/twenty#17850.
const RETRY_AFTER_IN_MESSAGE = /\bRetry after (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}))/;

/** Milliseconds until the "Retry after <ISO time>" in Google's message (0 when past), at most a day; undefined when absent. */
export function retryAfterFromMessage(message: string | undefined, now: number): number | undefined {
  const m = message ? RETRY_AFTER_IN_MESSAGE.exec(message.slice(0, 1000)) : null;
  const at = m ? Date.parse(m[1]!) : NaN;
  return Number.isNaN(at) ? undefined : Math.min(MAX_MESSAGE_RETRY_MS, Math.max(0, at - now));
}

/** Google's message, safe to show: no URL query strings, no credentials (Google's access and refresh tokens too), at most 300 characters. */
export const safeGoogleMessage = (message: string): string => safeVendorMessage(message, GOOGLE_TOKENS);

interface GoogleErrorBody {
  reason?: string;
  /** Every reason the body names (errors[].reason, ErrorInfo reasons), for matching. */
  reasons: string[];
  message?: string;
}

/** Reads Google's error body: `{error: {code, message, errors: [{reason}], status, details: [{reason}]}}`, or OAuth's `{error, error_description}`. */
function googleErrorBody(data: unknown): GoogleErrorBody {
  let body = data;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body) as unknown;
    } catch {
      return { reasons: [] };
    }
  }
  if (!isRecord(body)) return { reasons: [] };
  const error = body.error;
  if (typeof error === 'string') {
    const message = str(body.error_description);
    return { reason: error, reasons: [error], ...(message ? { message } : {}) };
  }
  if (!isRecord(error)) return { reasons: [] };
  const items = Array.isArray(error.errors) ? error.errors : [];
  const details = Array.isArray(error.details) ? error.details : [];
  const itemReasons = items.map((i) => (isRecord(i) ? str(i.reason) : undefined)).filter((r): r is string => !!r);
  const infoReasons = details.map((d) => (isRecord(d) ? str(d.reason) : undefined)).filter((r): r is string => !!r);
  const status = str(error.status);
  const reason = itemReasons[0] ?? infoReasons[0] ?? status;
  const message = str(error.message);
  return { reasons: [...itemReasons, ...infoReasons, ...(status ? [status] : [])], ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

const timeoutFailure = (what: string): ClassifiedFailure => vendorTimeout('Google', what);

/**
 * Maps a failure of one googleapis call. Returns undefined for anything that is not an upstream failure (a bug
 * in the calling code): the caller re-throws it.
 */
export function classifyGoogleError(err: unknown, options: ClassifyOptions = {}): ClassifiedFailure | undefined {
  const what = options.operation ?? 'the request';
  if (err instanceof RefusedLocally) return { kind: 'refused_locally', retryWhen: 'never', upstreamFailure: false, error: err.error };
  if (err instanceof TaskCancelledError || err instanceof DeadlineExceededError) return timeoutFailure(what);
  if (!(err instanceof GaxiosError)) return undefined;

  const response = err.response;
  const status = typeof response?.status === 'number' ? response.status : undefined;
  if (status === undefined) {
    const code = errorCode(err);
    if (code && ABORT_CODES.has(code)) return timeoutFailure(what);
    return networkFailure('Google', what, code);
  }

  const body = googleErrorBody(response?.data);
  const now = options.now ?? Date.now();
  const headerS = retryAfterSeconds(response?.headers, now);
  const has = (set: ReadonlySet<string>) => body.reasons.some((r) => set.has(r));
  const rateLimited = status === 429 || (status === 403 && has(RATE_LIMIT_REASONS));
  // The later of the two when Google gives both: waiting less than either is waiting too little.
  const fromMessage = rateLimited ? retryAfterFromMessage(body.message, now) : undefined;
  const retryAfterMs = headerS === undefined && fromMessage === undefined ? undefined : Math.max((headerS ?? 0) * 1000, fromMessage ?? 0);
  const base = {
    status,
    ...(body.reason ? { reason: body.reason } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };

  if (rateLimited) {
    const reason = body.reasons.find((r) => RATE_LIMIT_REASONS.has(r)) ?? body.reason ?? 'rateLimitExceeded';
    const wait = atLeastOneSecond(retryAfterMs ?? options.fallbackRetryAfterMs) ?? 1;
    const sendingLimit = /\(Mail sending\)/.test(body.message?.slice(0, 1000) ?? '');
    return {
      ...base,
      kind: 'rate_limited',
      retryWhen: 'if_idempotent',
      upstreamFailure: false,
      ...(sendingLimit ? { sendingLimit } : {}),
      error: hubError('RATE_LIMITED', `Google rate limited ${what}${sendingLimit ? " (the mailbox's sending limit)" : ''}`, {
        retryable: true,
        retryAfterS: wait,
        details: { scope: 'upstream', reason },
      }),
    };
  }
  if (status === 403 && has(QUOTA_REASONS)) {
    const wait = atLeastOneSecond(options.quotaCooldownMs ?? 3600_000) ?? 3600;
    return {
      ...base,
      kind: 'quota_exceeded',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('RATE_LIMITED', `Google's usage limits for this account are exceeded; its calendar is read-only for a while, so ${what} was refused`, {
        retryable: true,
        retryAfterS: wait,
        details: { scope: 'upstream_quota', reason: 'quotaExceeded' },
      }),
    };
  }
  if (status === 401) {
    return {
      ...base,
      kind: 'token_rejected',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('INTEGRATION_EXPIRED', `Google rejected the stored credentials for ${what}; the integration must be reconnected`, {
        details: { reason: 'token_rejected' },
      }),
    };
  }
  if (status === 403 && has(SCOPE_REASONS)) {
    return {
      ...base,
      kind: 'permission_denied',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('INTEGRATION_PERMISSION_DENIED', `The connected account did not grant the access ${what} needs`, {
        details: { reason: 'insufficient_scopes' },
      }),
    };
  }
  if (status === 404 || status === 410) {
    return {
      ...base,
      kind: 'not_found',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError(
        'RESOURCE_NOT_FOUND',
        status === 410 ? `Google says the resource of ${what} was deleted` : `Google does not know the resource of ${what}`,
        {
          details: { upstream_status: status, ...(body.reason ? { reason: body.reason } : {}) },
        },
      ),
    };
  }
  if (status === 409) {
    return {
      ...base,
      kind: 'conflict',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('CONFLICT', `Google refused ${what} as a conflict${body.message ? `: ${safeGoogleMessage(body.message)}` : ''}`, {
        details: { reason: body.reason ?? 'conflict' },
      }),
    };
  }
  if (status === 408) {
    // Google's front end gave up waiting for the request: a timeout, not a verdict on it (and not Google down).
    return { ...base, ...timeoutFailure(what), upstreamFailure: false };
  }
  if (status >= 500) {
    return {
      ...base,
      kind: 'server_error',
      retryWhen: 'if_idempotent',
      upstreamFailure: true,
      error: hubError('EXTERNAL_API_ERROR', `Google failed ${what} (HTTP ${status})`, {
        retryable: true,
        details: { upstream_status: status, ...(body.reason ? { reason: body.reason } : {}) },
      }),
    };
  }
  // Any other answer that gaxios refused: 400, other 403s, 405, 412, 413…, or a non-error status it could not read.
  const message = body.message ? safeGoogleMessage(body.message) : undefined;
  return {
    ...base,
    kind: 'client_error',
    retryWhen: 'never',
    upstreamFailure: false,
    error: hubError('EXTERNAL_API_ERROR', `Google refused ${what} (HTTP ${status})${message ? `: ${message}` : ''}`, {
      retryable: false,
      details: { upstream_status: status, ...(body.reason ? { reason: body.reason } : {}), ...(message ? { message } : {}) },
    }),
  };
}

/** The breaker's filter: only evidence that the upstream is unhealthy counts; 4xx (429 included) never does. */
export function isUpstreamFailure(err: unknown): boolean {
  return classifyGoogleError(err)?.upstreamFailure ?? false;
}
