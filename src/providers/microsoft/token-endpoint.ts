import { z } from 'zod';
import { type AadError, parseAadError } from './aadsts';
import { readBoundedText } from './http-body';

/**
 * One POST to the identity platform's token endpoint (`/{tenant}/oauth2/v2.0/token`), client_secret_post
 * (v2-oauth2-auth-code-flow: the secret in the form body), and what came back — never retried here: an
 * authorization code is single-use, and a refresh is retried, if at all, by the caller's policy. The answer is
 * read up to a bound and parsed; what it means is the caller's (oauth.ts, refresh.ts).
 *
 * Node's fetch rather than a client library: the one request needs a form body, a timeout, the caller's signal,
 * no redirects (the token endpoint never redirects; one that does is not the token endpoint) and a bounded body.
 */

/** Microsoft's answers are a few kilobytes (an access token, a refresh token, an id_token): far above that is hostile. */
export const MAX_TOKEN_ANSWER_BYTES = 256 * 1024;

export type TokenResponse =
  /** 200 with a JSON body (unvalidated: `tokenAnswerSchema` checks it). */
  | { kind: 'answer'; body: unknown }
  /** 4xx with the identity platform's error body. */
  | { kind: 'refused'; status: number; error: AadError }
  /** Any other status (5xx, 429, a 4xx without an error body), with Retry-After when sent. */
  | { kind: 'status'; status: number; retryAfterMs?: number }
  /** A 200 whose body is not JSON, or larger than the bound. */
  | { kind: 'malformed'; status: number; reason: 'not_json' | 'too_large' }
  | { kind: 'network'; code?: string }
  | { kind: 'timeout' };

/** Token text goes into Authorization headers and form bodies later: printable ASCII, no spaces, bounded. */
const tokenText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'not a token');

/** A successful answer (v2-oauth2-auth-code-flow, "Successful response"). */
export const tokenAnswerSchema = z.object({
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'only Bearer tokens are issued'),
  access_token: tokenText(16_384),
  expires_in: z
    .number()
    .int()
    .positive()
    .max(7 * 86_400),
  /** Space-separated; "if omitted, the token is for the scopes requested on the initial leg". */
  scope: z.string().max(8_192).optional(),
  refresh_token: tokenText(16_384).optional(),
  id_token: tokenText(32_768).optional(),
});
export type TokenAnswer = z.infer<typeof tokenAnswerSchema>;

function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d{1,6}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const ABORTS = new Set(['AbortError', 'TimeoutError']);

/**
 * fetch's failure: an abort (the caller's signal or the timeout), or `TypeError: fetch failed` with the socket's
 * error as its cause. Judged by name, not `instanceof`: fetch's errors come from Node's own realm, which a test
 * runner's sandboxed globals do not share.
 */
function transportFailure(err: unknown): TokenResponse {
  const e = err as { name?: unknown; message?: unknown; cause?: { code?: unknown; name?: unknown } } | null;
  if (typeof e?.name === 'string' && ABORTS.has(e.name)) return { kind: 'timeout' };
  if (e?.name === 'TypeError' && e.message === 'fetch failed') {
    if (typeof e.cause?.name === 'string' && ABORTS.has(e.cause.name)) return { kind: 'timeout' };
    const code = typeof e.cause?.code === 'string' && /^[A-Z_]{1,40}$/.test(e.cause.code) ? e.cause.code : undefined;
    return { kind: 'network', ...(code ? { code } : {}) };
  }
  throw err; // not a transport failure: a bug
}

export async function postTokenRequest(url: string, form: URLSearchParams, options: { timeoutMs: number; signal?: AbortSignal }): Promise<TokenResponse> {
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]) : AbortSignal.timeout(options.timeoutMs);
  let res: Response;
  let text: string | undefined;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      redirect: 'manual',
      signal,
    });
    text = await readBoundedText(res, MAX_TOKEN_ANSWER_BYTES);
  } catch (err) {
    return transportFailure(err);
  }
  let body: unknown;
  try {
    body = text === undefined || text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.status === 200) {
    if (text === undefined) return { kind: 'malformed', status: 200, reason: 'too_large' };
    return body === undefined ? { kind: 'malformed', status: 200, reason: 'not_json' } : { kind: 'answer', body };
  }
  const error = res.status >= 400 && res.status < 500 && res.status !== 429 ? parseAadError(body) : undefined;
  if (error) return { kind: 'refused', status: res.status, error };
  const after = retryAfterMs(res.headers.get('retry-after'));
  return { kind: 'status', status: res.status, ...(after !== undefined ? { retryAfterMs: after } : {}) };
}
