import { TaskCancelledError } from 'cockatiel';
import { hubError } from '../../core/errors';
import { type ClassifiedFailure, type ClassifyOptions, DeadlineExceededError, RefusedLocally, errorCode } from '../../resilience/failures';
import { LeanTransportFailure } from '../lean-http';
import { atLeastOneSecond, networkFailure, safeVendorMessage, timeoutFailure as vendorTimeout } from '../vendor-failures';
import { GraphError } from './graph-request';

/**
 * What a failed Graph request becomes in the Hub's vocabulary: which HubError, whether repeating may help (and
 * for which operations), and whether it is evidence that Microsoft is unhealthy (the circuit breaker). Pure.
 *
 * Sources: Graph's error responses (learn.microsoft.com/graph/errors: status codes and `error.code`s), Graph's
 * throttling guidance (learn.microsoft.com/graph/throttling: 429 with Retry-After; 503/504 may carry it too, "the
 * same as a 429"), Outlook's service limits (ApplicationThrottled, MailboxConcurrency), Exchange Online's
 * sending limits. Graph's message is kept only scrubbed and cut (it can quote the request); no header value and
 * no URL is ever copied into an answer.
 */

/** Graph's message, safe to show: no URL query strings, no bearer tokens or JWTs, no control characters, at most 300 characters. */
export const safeGraphMessage = (message: string): string => safeVendorMessage(message, [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g]);

/** 403s that mean the grant lacks a permission (delegated scopes), not a rate or quota. */
const ACCESS_DENIED = new Set([
  'ErrorAccessDenied',
  'AccessDenied',
  'accessDenied',
  'Authorization_RequestDenied',
  'ErrorInsufficientPermissionsInAccessToken',
]);
/** Ids that cannot be Graph ids are answered 400; to the caller there is no such item. */
const NOT_AN_ID = new Set(['ErrorInvalidIdMalformed', 'ErrorInvalidId']);
/** Exchange's sending limits (recipients per message, per day): a refusal of sends, not of reads. */
const SENDING_LIMIT = 'ErrorSubmissionQuotaExceeded';

const timeoutFailure = (what: string): ClassifiedFailure => vendorTimeout('Microsoft', what);

const ABORTS = new Set(['AbortError', 'TimeoutError', 'ABORT_ERR', 'UND_ERR_ABORTED']);

const errorName = (err: unknown): string | undefined =>
  err !== null && typeof err === 'object' && typeof (err as { name?: unknown }).name === 'string' ? (err as { name: string }).name : undefined;

/**
 * Maps a failure of one Graph request (what `graphFetch` threw). Undefined for anything that is not an upstream
 * failure — a bug in the calling code, which the caller re-throws.
 */
export function classifyGraphError(err: unknown, options: ClassifyOptions = {}): ClassifiedFailure | undefined {
  const what = options.operation ?? 'the request';
  if (err instanceof RefusedLocally) return { kind: 'refused_locally', retryWhen: 'never', upstreamFailure: false, error: err.error };
  if (err instanceof TaskCancelledError || err instanceof DeadlineExceededError) return timeoutFailure(what);
  if (!(err instanceof GraphError)) {
    // The transport's failures (lean-http's, with the socket's code), fetch's (the token and key endpoints: a
    // TypeError('fetch failed') whose cause carries the code), or an abort. Read by
    // name, not instanceof: undici's errors and DOMExceptions come from Node's own realm, which is not the caller's
    // under a VM sandbox (Jest), and an abort is a DOMException, not an Error, in some Node releases.
    const name = errorName(err);
    if (name && ABORTS.has(name)) return timeoutFailure(what);
    const transport = err instanceof LeanTransportFailure || (name === 'TypeError' && (err as Error).message === 'fetch failed');
    if (!transport) return undefined;
    const code = errorCode(err);
    if (code && ABORTS.has(code)) return timeoutFailure(what);
    return networkFailure('Microsoft', what, code);
  }

  const { status, code } = err;
  const base = { status, ...(code ? { reason: code } : {}), ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}) };
  const message = err.graphMessage ? safeGraphMessage(err.graphMessage) : undefined;

  if (code === SENDING_LIMIT) {
    return {
      ...base,
      kind: 'rate_limited',
      retryWhen: 'never',
      upstreamFailure: false,
      sendingLimit: true,
      error: hubError('RATE_LIMITED', `Exchange refused ${what}: the mailbox's sending limit${message ? ` (${message})` : ''}`, {
        retryable: status !== 400, // 400: too many recipients in this message — sending it again cannot help
        ...(status !== 400 ? { retryAfterS: atLeastOneSecond(err.retryAfterMs ?? 3600_000) ?? 3600 } : {}),
        details: { scope: 'upstream', reason: code },
      }),
    };
  }
  if (status === 429) {
    const wait = atLeastOneSecond(err.retryAfterMs ?? options.fallbackRetryAfterMs) ?? 1;
    return {
      ...base,
      kind: 'rate_limited',
      retryWhen: 'if_idempotent',
      upstreamFailure: false,
      error: hubError('RATE_LIMITED', `Microsoft rate limited ${what}`, {
        retryable: true,
        retryAfterS: wait,
        details: { scope: 'upstream', reason: code || 'TooManyRequests' },
      }),
    };
  }
  if (status === 401) {
    return {
      ...base,
      kind: 'token_rejected',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('INTEGRATION_EXPIRED', `Microsoft rejected the stored credentials for ${what}; the integration must be reconnected`, {
        details: { reason: 'token_rejected' },
      }),
    };
  }
  if (status === 403 && ACCESS_DENIED.has(code)) {
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
  if (status === 404 || status === 410 || (status === 400 && NOT_AN_ID.has(code))) {
    return {
      ...base,
      kind: 'not_found',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('RESOURCE_NOT_FOUND', `Microsoft does not know the resource of ${what}`, {
        details: { upstream_status: status, ...(code ? { reason: code } : {}) },
      }),
    };
  }
  if (status === 409) {
    return {
      ...base,
      kind: 'conflict',
      retryWhen: 'never',
      upstreamFailure: false,
      error: hubError('CONFLICT', `Microsoft refused ${what} as a conflict${message ? `: ${message}` : ''}`, { details: { reason: code || 'conflict' } }),
    };
  }
  if (status === 408) return { ...base, ...timeoutFailure(what), upstreamFailure: false };
  if (status >= 500 && status !== 507) {
    return {
      ...base,
      kind: 'server_error',
      retryWhen: 'if_idempotent',
      upstreamFailure: true,
      error: hubError('EXTERNAL_API_ERROR', `Microsoft failed ${what} (HTTP ${status})`, {
        retryable: true,
        ...(err.retryAfterMs !== undefined ? { retryAfterS: atLeastOneSecond(err.retryAfterMs) } : {}),
        details: { upstream_status: status, ...(code ? { reason: code } : {}) },
      }),
    };
  }
  // 400, other 403s, 405, 412 (a stale If-Match), 413, 507 (the mailbox is full)…: a verdict on this request.
  return {
    ...base,
    kind: 'client_error',
    retryWhen: 'never',
    upstreamFailure: false,
    error: hubError('EXTERNAL_API_ERROR', `Microsoft refused ${what} (HTTP ${status})${message ? `: ${message}` : ''}`, {
      retryable: false,
      details: { upstream_status: status, ...(code ? { reason: code } : {}), ...(message ? { message } : {}) },
    }),
  };
}
