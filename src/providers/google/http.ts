import type http from 'node:http';
import { Readable } from 'node:stream';
import { LeanAbort, LeanTooLarge, LeanTransportFailure, rawHeader, sendLean } from '../lean-http';

/**
 * The HTTP transport under googleapis/gaxios (their `fetchImplementation`): Node's own `http`/`https` request
 * (../lean-http.ts, which the Graph adapters use too) —
 * the stack gaxios' default, node-fetch 3, is built on — without node-fetch's per-request machinery (a WHATWG
 * Request, Headers and Response, a stream pipeline per answer that makes a DOMException on every response):
 * about half a millisecond of CPU per Google request on this project's machines (`npm run bench:realcall`).
 *
 * What Google sees is what node-fetch sends, byte for byte (test/unit/google-http.test.ts compares the two
 * against a recording server): the same header names, lower-cased and sorted, node-fetch's defaults added when
 * absent (`accept: *\/*`, `user-agent: node-fetch`, `accept-encoding: gzip, deflate, br`, the body's
 * `content-length` and, for text and form bodies, its content type), the same connection handling (Node's
 * global keep-alive agents, or the agent gaxios passes for a proxy or mTLS).
 *
 * What comes back is read whole, bounded, and decoded as node-fetch decodes it (gzip, deflate — zlib or raw —
 * and brotli). Two deliberate differences: a redirect is handed to gaxios as the answer instead of followed
 * (Google's JSON APIs and OAuth endpoints do not redirect; following one would carry the bearer token to wherever
 * a Location pointed), and an answer over MAX_ANSWER_BYTES, compressed or not, fails the request (node-fetch
 * reads without limit: a hostile or broken endpoint could exhaust memory). Request bodies this transport does
 * not take (streams, blobs, form data) and `responseType: 'stream'` go to node-fetch itself.
 */

/** The largest answer read, before and after decoding: well above Gmail's largest message in `format=raw` (~35 MB as base64url JSON). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The part of gaxios' prepared options (passed as fetch's `init`) this transport reads. */
interface GaxiosInit {
  method?: string;
  headers?: Headers | Record<string, string | readonly string[]>;
  body?: unknown;
  signal?: AbortSignal | null;
  agent?: http.Agent | ((url: URL) => http.Agent) | false;
  insecureHTTPParser?: boolean;
  responseType?: string;
}

/** node-fetch's AbortError: what gaxios expects when the signal stops a request (it then names it a timeout or an abort). */
class AbortError extends LeanAbort {
  readonly type = 'aborted';
}

/** A request that failed at the socket (node-fetch's FetchError 'system'): `code` is the system error's, which the Hub classifies. */
class TransportError extends LeanTransportFailure {
  readonly type = 'system';
  constructor(message: string, cause: unknown) {
    super(message, cause);
    this.name = 'FetchError';
  }
}

const tooLarge = () => Object.assign(new Error(`Google's answer is larger than ${MAX_ANSWER_BYTES} bytes`), { code: 'ERR_ANSWER_TOO_LARGE' });

/** The body as bytes plus the content type node-fetch would infer for it; undefined = not a shape this transport sends. */
function bodyBytes(body: unknown): { bytes: Buffer | null; inferredType: string | null } | undefined {
  if (body === undefined || body === null) return { bytes: null, inferredType: null };
  if (typeof body === 'string') return { bytes: Buffer.from(body), inferredType: 'text/plain;charset=UTF-8' };
  if (Buffer.isBuffer(body)) return { bytes: body, inferredType: null };
  if (body instanceof URLSearchParams) return { bytes: Buffer.from(body.toString()), inferredType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (ArrayBuffer.isView(body)) return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength), inferredType: null };
  if (body instanceof ArrayBuffer) return { bytes: Buffer.from(body), inferredType: null };
  return undefined;
}

/** The request's headers as node-fetch sends them: names lower-cased and sorted, its defaults added. */
function requestHeaders(init: GaxiosInit, method: string, body: { bytes: Buffer | null; inferredType: string | null }): Record<string, string | string[]> {
  const given = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    const values = given.get(key);
    if (values) values.push(value);
    else given.set(key, [value]);
  };
  const h = init.headers;
  if (h instanceof Headers) h.forEach((value, name) => add(name, value));
  else if (h) for (const [name, value] of Object.entries(h)) for (const v of typeof value === 'string' ? [value] : value) add(name, String(v));
  // The order node-fetch's Request and getNodeRequestOptions apply them in.
  if (body.inferredType && !given.has('content-type')) given.set('content-type', [body.inferredType]);
  if (!given.has('accept')) given.set('accept', ['*/*']);
  if (body.bytes) given.set('content-length', [String(body.bytes.length)]);
  else if (method === 'POST' || method === 'PUT') given.set('content-length', ['0']);
  if (!given.has('user-agent')) given.set('user-agent', ['node-fetch']);
  if (!given.has('accept-encoding')) given.set('accept-encoding', ['gzip, deflate, br']);
  const out: Record<string, string | string[]> = {};
  for (const name of [...given.keys()].sort()) {
    const values = given.get(name)!;
    out[name] = name === 'host' || values.length === 1 ? values[0]! : values;
  }
  return out;
}

/**
 * The answer as gaxios reads a fetch Response: status, headers (built on first use — a success is read without
 * them), and the body as text, JSON, bytes, a Blob or a stream. Read once into memory, so reading it again is allowed.
 */
class Answer {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'default';
  /** Set once the body is read, as fetch does: GaxiosError keeps an error answer's parsed body only then. */
  bodyUsed = false;
  #headers: Headers | undefined;
  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    private readonly rawHeaders: readonly string[],
    private readonly content: Buffer,
  ) {
    this.ok = status >= 200 && status < 300;
  }
  get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      for (let i = 0; i + 1 < this.rawHeaders.length; i += 2) {
        try {
          headers.append(this.rawHeaders[i]!, this.rawHeaders[i + 1]!);
        } catch {
          // node-fetch drops a header that is not valid HTTP (Node's parser lets some through)
        }
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
  get body(): Readable {
    this.bodyUsed = true;
    return Readable.from([this.content]);
  }
  async text(): Promise<string> {
    this.bodyUsed = true;
    // UTF-8 as the WHATWG decoder reads it: a leading byte-order mark is not text.
    const b = this.content;
    return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.toString('utf8', 3) : b.toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    this.bodyUsed = true;
    return new Uint8Array(this.content).buffer;
  }
  async bytes(): Promise<Uint8Array> {
    this.bodyUsed = true;
    return new Uint8Array(this.content);
  }
  async blob(): Promise<Blob> {
    this.bodyUsed = true;
    return new Blob([new Uint8Array(this.content)], { type: this.rawHeader('content-type') ?? '' });
  }
  clone(): Answer {
    return new Answer(this.url, this.status, this.statusText, this.rawHeaders, this.content);
  }
  private rawHeader(name: string): string | undefined {
    return rawHeader(this.rawHeaders, name);
  }
}

/** node-fetch upper-cases the standard methods only (PATCH goes as given; googleapis gives it upper-case). */
const methodOf = (init: GaxiosInit) => {
  const method = init.method ?? 'GET';
  return /^(delete|get|head|options|post|put)$/i.test(method) ? method.toUpperCase() : method;
};

/**
 * The transport. `fallback` is node-fetch itself (loaded on first need), for the request shapes this one leaves
 * to it; tests pass a spy.
 */
export function createGoogleHttp(fallback: () => Promise<FetchFn> = loadNodeFetch): FetchFn {
  const lean = async (url: URL, init: GaxiosInit, body: { bytes: Buffer | null; inferredType: string | null }): Promise<Response> => {
    const method = methodOf(init);
    const agent = typeof init.agent === 'function' ? init.agent(url) : init.agent;
    try {
      const answer = await sendLean(url, {
        method,
        headers: requestHeaders(init, method, body),
        body: body.bytes,
        signal: init.signal ?? undefined,
        maxBytes: MAX_ANSWER_BYTES,
        ...(agent !== undefined ? { agent } : {}),
        ...(init.insecureHTTPParser !== undefined ? { insecureHTTPParser: init.insecureHTTPParser } : {}),
      });
      return new Answer(url.toString(), answer.status, answer.statusText, answer.rawHeaders, answer.body) as unknown as Response;
    } catch (err) {
      // The shapes gaxios reads from node-fetch: an AbortError (then named a timeout or an abort), a FetchError.
      if (err instanceof LeanAbort) throw new AbortError();
      if (err instanceof LeanTransportFailure) throw new TransportError(err.message, err.cause);
      if (err instanceof LeanTooLarge) throw tooLarge();
      throw err;
    }
  };

  return (input, init) => {
    const options = (init ?? {}) as GaxiosInit;
    const url = input instanceof URL ? input : typeof input === 'string' ? new URL(input) : undefined;
    const body = bodyBytes(options.body);
    // node-fetch refuses a GET or HEAD with a body: left to it, so the caller gets the very same error.
    const bodyless = body?.bytes && /^(get|head)$/i.test(options.method ?? 'GET');
    if (!url || !body || bodyless || options.responseType === 'stream' || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return fallback().then((f) => f(input, init));
    }
    return lean(url, options, body);
  };
}

let nodeFetch: Promise<FetchFn> | undefined;
/** gaxios' own default, for what the lean path does not take (node-fetch 3 is ESM: loaded as gaxios loads it). */
function loadNodeFetch(): Promise<FetchFn> {
  return (nodeFetch ??= import('node-fetch').then((m) => m.default as unknown as FetchFn));
}
