import type { HubError } from '../core/errors';

/**
 * What the resilience layer needs to know about one failed vendor call, whatever the vendor: the HubError it
 * becomes, whether repeating may help (and for which operations), and whether it is evidence that the vendor is
 * unhealthy (the circuit breakers). Each provider's classifier (src/providers/<vendor>/errors) produces these.
 */

export type FailureKind =
  | 'rate_limited'
  | 'quota_exceeded'
  | 'refused_locally'
  | 'token_rejected'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'client_error'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'circuit_open';

/**
 * When the same request may be sent again:
 * - `never`: repeating cannot help (4xx other than rate limits and 408, an open circuit);
 * - `if_idempotent`: it may help, but the first request may have reached the vendor (it answered, or bytes left);
 * - `always`: the request provably never left this process (connection refused, DNS failure).
 */
export type RetryWhen = 'never' | 'if_idempotent' | 'always';

export interface ClassifiedFailure {
  kind: FailureKind;
  error: HubError;
  retryWhen: RetryWhen;
  /** Evidence that the upstream is unhealthy (5xx, network, timeout): counts toward opening the circuit. */
  upstreamFailure: boolean;
  /** HTTP status the vendor answered with, when it answered. */
  status?: number;
  /** The vendor's reason (Google's `errors[0].reason`, Graph's `error.code`). */
  reason?: string;
  /** The wait the vendor asked for (Retry-After, or a time named in its message), in milliseconds. */
  retryAfterMs?: number;
  /** A limit on sending mail (Gmail's daily "… (Mail sending)"): it stops sends, not reads. */
  sendingLimit?: boolean;
}

export interface ClassifyOptions {
  /** The vendor's operation name, for messages. */
  operation?: string;
  /** For Retry-After dates (ms since the epoch). */
  now?: number;
  /** RATE_LIMITED without Retry-After: the backoff the Hub would have waited before the next attempt. */
  fallbackRetryAfterMs?: number;
  /** A vendor quota that parks the account for hours (Calendar's quotaExceeded): how long the Hub holds back. */
  quotaCooldownMs?: number;
  integration?: string;
}

/** Raised by the resilience layer when the tool call's deadline has passed before an attempt could start. */
export class DeadlineExceededError extends Error {
  constructor() {
    super('the tool call deadline passed');
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Raised inside an attempt when the Hub itself refuses to call the vendor (the mailbox's unit budget is spent, a
 * cool-down is running): carries the answer, and says that no request left.
 */
export class RefusedLocally extends Error {
  constructor(readonly error: HubError) {
    super(error.message);
    this.name = 'RefusedLocally';
  }
}

/** Connection-phase failures: the request was never written, so even a non-idempotent call may be repeated. */
export const NEVER_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A response header: from a fetch `Headers` (gaxios 7+, undici) or a plain record (older clients, tests). */
function header(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const v: unknown = get.call(headers, name);
    return typeof v === 'string' ? v : undefined;
  }
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() !== name) continue;
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  }
  return undefined;
}

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const HTTP_DATE = [
  /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * Seconds to wait from a Retry-After header (delay-seconds or an HTTP date, relative to `now` in ms since the
 * epoch); a date in the past is 0. Undefined when absent or not one of the two forms.
 */
export function retryAfterSeconds(headers: unknown, now: number): number | undefined {
  const raw = header(headers, 'retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d{1,10}$/.test(raw)) return Number(raw);
  if (!HTTP_DATE.some((re) => re.test(raw))) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** A string `code` anywhere on the error or its cause chain (gaxios copies it; undici nests it one level deeper). */
export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether the layer may send the request again, given the operation's idempotency. */
export function mayRetry(failure: Pick<ClassifiedFailure, 'retryWhen'>, idempotent: boolean): boolean {
  return failure.retryWhen === 'always' || (failure.retryWhen === 'if_idempotent' && idempotent);
}
