import type { HubError, TransportError } from './errors.js';

/** The fetch the client needs (global fetch in Node ≥ 18, browsers, Deno, Bun; or your own). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<{ status: number; text(): Promise<string>; headers?: { get(name: string): string | null } }>;

/** How long one call may take and how it is cancelled. */
export interface CallControl {
  /** Cancels the call, waits included. */
  signal?: AbortSignal;
  /** Per attempt, in ms (default: the client's timeoutMs). */
  timeoutMs?: number;
}

/** An answer other than a tool run: the parsed body and its status, or why there is none. */
export type Answer<T> = { ok: true; value: T; status: number } | { ok: false; error: HubError | TransportError };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Hub's JSON answer, narrowed by the envelope where it is read
export type AnswerJson = any;

export type Exchange = { ok: true; status: number; json: AnswerJson; header(name: string): string | null } | { ok: false; error: TransportError };

export const transport = (code: TransportError['code'], message: string, details: TransportError['details'] = {}): TransportError => ({
  code,
  message,
  retryable: false,
  details,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the error object of an envelope the Hub answered, typed by its code in HubError
export const hubError = (status: number, error: any): HubError => ({ ...error, status });

/** Waits `ms`, or less when `signal` aborts (then resolves false). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One HTTP exchange with the Hub: the parsed JSON, its status and headers, or a transport error (never a throw).
 * `authorization` is the whole header value (`ServiceSecret …` or `Bearer …`).
 */
export function sender(options: { baseUrl: string; authorization: string; fetch?: FetchLike | undefined; timeoutMs?: number | undefined }) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  return async function send(method: string, path: string, body: unknown, call: CallControl, extra: Record<string, string> = {}): Promise<Exchange> {
    const limitMs = call.timeoutMs ?? options.timeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(limitMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    const headers: Record<string, string> = { ...extra, authorization: options.authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Awaited<ReturnType<FetchLike>>;
    let text: string;
    try {
      res = await doFetch(`${base}${path}`, { method, headers, signal, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      text = await res.text();
    } catch (cause) {
      if (call.signal?.aborted) return { ok: false, error: transport('ABORTED', 'The call was aborted', { cause: call.signal.reason }) };
      if (timeout.aborted) return { ok: false, error: transport('TIMEOUT', `The Hub did not answer within ${limitMs} ms`) };
      return { ok: false, error: transport('NETWORK_ERROR', `Could not reach the Hub at ${base}: ${(cause as Error)?.message ?? String(cause)}`, { cause }) };
    }
    try {
      return { ok: true, status: res.status, json: JSON.parse(text), header: (name) => res.headers?.get(name) ?? null };
    } catch {
      return { ok: false, error: transport('INVALID_RESPONSE', `The Hub answered ${res.status} with a body that is not JSON`, { status: res.status }) };
    }
  };
}

/** A plain JSON answer: the value on 2xx, the Hub's error on an envelope, else INVALID_RESPONSE. */
export function answerOf<T>(exchange: Exchange): Answer<T> {
  if (!exchange.ok) return exchange;
  if (exchange.status >= 200 && exchange.status < 300) return { ok: true, value: exchange.json as T, status: exchange.status };
  if (typeof exchange.json?.error?.code === 'string') return { ok: false, error: hubError(exchange.status, exchange.json.error) };
  return { ok: false, error: transport('INVALID_RESPONSE', `The Hub answered ${exchange.status} without its error envelope`, { status: exchange.status }) };
}
