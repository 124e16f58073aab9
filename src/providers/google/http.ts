import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/**
 * The HTTP transport under googleapis/gaxios (their `fetchImplementation`): Node's own `http`/`https` request —
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
class AbortError extends Error {
  readonly type = 'aborted';
  constructor() {
    super('The operation was aborted.');
    this.name = 'AbortError';
  }
}

/** A request that failed at the socket (node-fetch's FetchError 'system'): `code` is the system error's, which the Hub classifies. */
class TransportError extends Error {
  readonly type = 'system';
  readonly code: string | undefined;
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'FetchError';
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.code = typeof code === 'string' ? code : undefined;
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

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);
// node-fetch's (and cURL's) leniency: a stream that ends without its final block still yields what it holds.
const LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_ANSWER_BYTES };

/**
 * A small gzip answer (what nearly every Calendar and Gmail call gets: Google compresses when googleapis asks) is
 * inflated on the spot rather than through the thread pool, whose round trip costs more than the work; its output
 * is capped so that the stall stays under a millisecond even for a hostile one (which then inflates on the pool).
 */
const SYNC_GZIP_INPUT = 16 * 1024;
const SYNC_GZIP_OUTPUT = 1024 * 1024;

/** The answer's bytes decoded per Content-Encoding, as node-fetch decodes them (unknown codings pass through). */
async function decoded(bytes: Buffer, coding: string | undefined): Promise<Buffer> {
  try {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        if (bytes.length <= SYNC_GZIP_INPUT) {
          try {
            return zlib.gunzipSync(bytes, { ...LENIENT, maxOutputLength: SYNC_GZIP_OUTPUT });
          } catch (err) {
            if ((err as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE') throw err;
          }
        }
        return await gunzip(bytes, LENIENT);
      case 'deflate':
      case 'x-deflate':
        // "deflate" is zlib-wrapped by the RFC and raw from some servers: node-fetch tells them by the first byte.
        if (bytes.length === 0) return bytes;
        return await ((bytes[0]! & 0x0f) === 0x08 ? inflate(bytes, LENIENT) : inflateRaw(bytes, LENIENT));
      case 'br':
        return await brotli(bytes, { maxOutputLength: MAX_ANSWER_BYTES });
      default:
        return bytes;
    }
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw err;
  }
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
    for (let i = 0; i + 1 < this.rawHeaders.length; i += 2) if (this.rawHeaders[i]!.toLowerCase() === name) return this.rawHeaders[i + 1];
    return undefined;
  }
}

/** node-fetch upper-cases the standard methods only (PATCH goes as given; googleapis gives it upper-case). */
const methodOf = (init: GaxiosInit) => {
  const method = init.method ?? 'GET';
  return /^(delete|get|head|options|post|put)$/i.test(method) ? method.toUpperCase() : method;
};

/** Codings node-fetch decodes; it leaves HEAD answers, 204 and 304 alone. */
const codingOf = (method: string, status: number, res: http.IncomingMessage): string | undefined =>
  method === 'HEAD' || status === 204 || status === 304 ? undefined : (res.headers['content-encoding'] as string | undefined);

/**
 * The transport. `fallback` is node-fetch itself (loaded on first need), for the request shapes this one leaves
 * to it; tests pass a spy.
 */
export function createGoogleHttp(fallback: () => Promise<FetchFn> = loadNodeFetch): FetchFn {
  const lean = (url: URL, init: GaxiosInit, body: { bytes: Buffer | null; inferredType: string | null }): Promise<Response> =>
    new Promise((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(new AbortError());
      const method = methodOf(init);
      const agent = typeof init.agent === 'function' ? init.agent(url) : init.agent;
      const href = url.toString();
      const req = (url.protocol === 'https:' ? https : http).request(href, {
        path: url.pathname + url.search,
        method,
        headers: requestHeaders(init, method, body),
        ...(agent !== undefined ? { agent } : {}),
        ...(init.insecureHTTPParser !== undefined ? { insecureHTTPParser: init.insecureHTTPParser } : {}),
      });
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const fail = (err: unknown) => settle(() => reject(err));
      const onAbort = () => {
        req.destroy();
        fail(new AbortError());
      };
      signal?.addEventListener('abort', onAbort);
      // The query string stays out of the message: it can hold what a person searched their mailbox for.
      req.on('error', (err) => fail(new TransportError(`request to ${url.origin}${url.pathname} failed, reason: ${err.message}`, err)));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let ended = false;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy();
            fail(tooLarge());
          } else chunks.push(chunk);
        });
        res.on('error', (err) => fail(new TransportError(`answer from ${url.origin}${url.pathname} failed, reason: ${err.message}`, err)));
        res.on('close', () => {
          if (!ended) fail(new TransportError('Premature close', Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })));
        });
        res.on('end', () => {
          ended = true;
          if (settled) return;
          const status = res.statusCode ?? 0;
          const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
          decoded(raw, codingOf(method, status, res)).then(
            (bytes) => settle(() => resolve(new Answer(href, status, res.statusMessage ?? '', res.rawHeaders, bytes) as unknown as Response)),
            fail,
          );
        });
      });
      req.end(body.bytes ?? undefined);
    });

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
