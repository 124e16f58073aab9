import { LeanAbort, type LeanAnswer, LeanTooLarge, rawHeader, sendLean } from '../lean-http';

/**
 * One HTTP request to Microsoft Graph, and nothing more: the bearer token, JSON in and out, a bounded answer, and
 * a thrown GraphError for every answer that is not 2xx. Retries, timeouts, budgets and the mapping to the
 * contract's codes are the resilience layer's (it runs this inside `call(op, fn)` and classifies what it throws).
 *
 * Why not @microsoft/microsoft-graph-client here: its middleware retries by itself (RetryHandler honours
 * Retry-After up to three times), which would run under the Hub's own retries and budgets and multiply the
 * requests a throttled mailbox receives; and it attaches the token only to https Graph hosts, so pointing it at
 * a configured endpoint means replacing its last hop anyway. The tests drive the sandbox with the real client.
 *
 * Sent over Node's http (../lean-http.ts), not fetch: the same request and answer for a fraction of the CPU.
 *
 * The token never leaves for another origin: a URL Graph hands back (`@odata.nextLink`) is followed only when it
 * is on the configured Graph origin, and redirects are not followed.
 */

/** Far above any answer the tools read (a page of 100 messages with bodies is a few MB): a hostile endpoint cannot exhaust memory. */
export const MAX_GRAPH_ANSWER_BYTES = 32 * 1024 * 1024;

export interface GraphRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** A path under the version root (`/me/events`), or an absolute URL Graph returned (`@odata.nextLink`). */
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON; a Buffer is taken as JSON serialized already (sizedGraphRequest) and sent as it is. */
  body?: unknown;
  /** E.g. `Prefer`, `If-Match`. */
  headers?: Record<string, string>;
}

export interface GraphAnswer<T = unknown> {
  status: number;
  /** The parsed JSON body; undefined for 202/204 or an empty body. Unvalidated: the adapter checks its shape. */
  body: T | undefined;
  /** The first value of a response header (name in lower case). */
  header(name: string): string | undefined;
}

/** Graph answered, but not with 2xx. Carries only what is safe to keep: no header values, no request URL. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    /** Graph's `error.code` (`ErrorItemNotFound`, `ApplicationThrottled`…), or '' when the body had none. */
    readonly code: string,
    /** Graph's `error.message`, cut to 300 characters (it may quote the request; never copied verbatim into answers unscrubbed). */
    readonly graphMessage: string,
    /** Retry-After (seconds or an HTTP date) in milliseconds from now, when Graph sent one. */
    readonly retryAfterMs: number | undefined,
    /** Graph's `request-id`, for support cases. */
    readonly requestId: string | undefined,
  ) {
    super(`Graph answered ${status}${code ? ` ${code}` : ''}`);
    this.name = 'GraphError';
  }
}

/** The origin and path prefix of `baseUrl` (`https://graph.microsoft.com/v1.0`). */
function resolve(baseUrl: string, req: GraphRequest): URL {
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = /^https?:\/\//i.test(req.path) ? new URL(req.path) : new URL(req.path.replace(/^\//, ''), base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) throw new Error('a Graph URL outside the configured Graph endpoint'); // a bug or a hostile nextLink
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  return url;
}

export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\d{1,6}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The exact bytes graphFetch sends as `req`'s body, or null for none. */
export function graphBody(req: GraphRequest): Buffer | null {
  if (req.body === undefined) return null;
  return Buffer.isBuffer(req.body) ? req.body : Buffer.from(JSON.stringify(req.body));
}

/** The methods whose bodies Outlook's upload limit counts (PUT too, should an adapter ever send one). */
const UPLOAD_METHODS: ReadonlySet<string> = new Set(['PATCH', 'POST', 'PUT']);

/**
 * `req` with its body serialized once, and the bytes Outlook's upload limit counts for it — the body of a PATCH,
 * POST or PUT ("150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period",
 * learn.microsoft.com/graph/throttling-limits#outlook-service-limits); 0 otherwise. The adapters hand the size to
 * the resilience layer (VendorOp.uploadBytes), which charges it before each attempt, and send this very body.
 */
export function sizedGraphRequest(req: GraphRequest): { req: GraphRequest; uploadBytes: number } {
  const body = graphBody(req);
  if (body === null) return { req, uploadBytes: 0 };
  return { req: { ...req, body }, uploadBytes: UPLOAD_METHODS.has(req.method) ? body.length : 0 };
}

/** Sends `req` with `token`; resolves for 2xx, throws GraphError otherwise (transport failures and aborts propagate as thrown). */
export async function graphFetch<T = unknown>(baseUrl: string, token: string, req: GraphRequest, signal: AbortSignal): Promise<GraphAnswer<T>> {
  const url = resolve(baseUrl, req);
  const body = graphBody(req);
  // What fetch sent before (undici's defaults: compression asked for, decoded on arrival), on Node's http.
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-encoding': 'gzip, deflate', ...req.headers };
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  } else if (req.method === 'POST' || req.method === 'PATCH') headers['content-length'] = '0';
  let res: LeanAnswer;
  try {
    res = await sendLean(url, { method: req.method, headers, body, signal, maxBytes: MAX_GRAPH_ANSWER_BYTES });
  } catch (err) {
    if (err instanceof LeanTooLarge) throw new GraphError(err.status ?? 0, 'AnswerTooLarge', 'the answer is larger than the Hub reads', undefined, undefined);
    // As fetch does: a stopped request rejects with the signal's reason (the deadline's or the cancellation's own error).
    if (err instanceof LeanAbort && signal.reason !== undefined) throw signal.reason;
    throw err;
  }
  const header = (name: string) => rawHeader(res.rawHeaders, name);
  let parsed: unknown;
  if (res.body.length > 0) {
    try {
      parsed = JSON.parse(res.body.toString('utf8'));
    } catch {
      parsed = undefined; // not JSON: judged by its status below (a 2xx without JSON is the adapter's unexpected answer)
    }
  }
  if (res.status >= 200 && res.status < 300) return { status: res.status, body: parsed as T | undefined, header };
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  throw new GraphError(
    res.status,
    typeof error?.code === 'string' ? error.code.slice(0, 100) : '',
    typeof error?.message === 'string' ? error.message.slice(0, 300) : '',
    retryAfterMs(header('retry-after') ?? null),
    header('request-id'),
  );
}
