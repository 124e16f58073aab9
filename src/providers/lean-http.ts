import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/**
 * One HTTP exchange with a vendor over Node's own `http`/`https` (the global keep-alive agents unless one is
 * given), read whole into memory under a bound, and decoded per Content-Encoding. What the providers' API calls
 * go through instead of fetch: WHATWG fetch (undici, or node-fetch under gaxios) builds a Request, a Headers, a
 * Response and a stream pipeline per call, about half a millisecond of CPU per vendor request on this project's
 * machines (`npm run bench:realcall`), and the Hub reads every answer whole anyway.
 *
 * Redirects are never followed (the caller sees the 3xx): following one would carry a bearer token to wherever a
 * Location pointed. Failures are typed so that each provider can give them the shape its classifier reads.
 */

export interface LeanRequest {
  method: string;
  /** Sent as given (names as written; Node lower-cases nothing). */
  headers: Record<string, string | string[]>;
  body?: Buffer | null;
  signal?: AbortSignal | undefined;
  /** The largest answer read, before and after decoding. */
  maxBytes: number;
  agent?: http.Agent | false;
  insecureHTTPParser?: boolean;
}

export interface LeanAnswer {
  status: number;
  statusText: string;
  /** Node's raw header list: name, value, name, value… */
  rawHeaders: readonly string[];
  /** Decoded per Content-Encoding (left alone for HEAD, 204 and 304). */
  body: Buffer;
}

/** The request was stopped by its signal. */
export class LeanAbort extends Error {
  constructor() {
    super('The operation was aborted.');
    this.name = 'AbortError';
  }
}

/** The socket failed, or the answer ended early (`code` ERR_STREAM_PREMATURE_CLOSE). */
export class LeanTransportFailure extends Error {
  readonly code: string | undefined;
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'LeanTransportFailure';
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/** The answer, compressed or not, is larger than `maxBytes`. */
export class LeanTooLarge extends Error {
  readonly code = 'ERR_ANSWER_TOO_LARGE';
  constructor(
    maxBytes: number,
    /** The answer's status, when its head had arrived. */
    readonly status?: number,
  ) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'LeanTooLarge';
  }
}

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/**
 * A small gzip answer (nearly every API call's, when compression is asked for) is inflated on the spot rather than
 * through the thread pool, whose round trip costs more than the work; its output is capped so that the stall stays
 * under a millisecond even for a hostile one (which then inflates on the pool).
 */
const SYNC_GZIP_INPUT = 16 * 1024;
const SYNC_GZIP_OUTPUT = 1024 * 1024;

/** `bytes` decoded per `coding`, as node-fetch and undici decode (unknown codings pass through). */
export async function decodeAnswer(bytes: Buffer, coding: string | undefined, maxBytes: number): Promise<Buffer> {
  // node-fetch's (and cURL's) leniency: a stream that ends without its final block still yields what it holds.
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: maxBytes };
  try {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        if (bytes.length <= SYNC_GZIP_INPUT) {
          try {
            return zlib.gunzipSync(bytes, { ...lenient, maxOutputLength: Math.min(SYNC_GZIP_OUTPUT, maxBytes) });
          } catch (err) {
            if ((err as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE' || maxBytes <= SYNC_GZIP_OUTPUT) throw err;
          }
        }
        return await gunzip(bytes, lenient);
      case 'deflate':
      case 'x-deflate':
        // "deflate" is zlib-wrapped by the RFC and raw from some servers: told apart by the first byte.
        if (bytes.length === 0) return bytes;
        return await ((bytes[0]! & 0x0f) === 0x08 ? inflate(bytes, lenient) : inflateRaw(bytes, lenient));
      case 'br':
        return await brotli(bytes, { maxOutputLength: maxBytes });
      default:
        return bytes;
    }
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new LeanTooLarge(maxBytes);
    throw err;
  }
}

/** Sends `req` to `url`; resolves with the whole answer (any status), rejects with LeanAbort, LeanTransportFailure or LeanTooLarge. */
export function sendLean(url: URL, req: LeanRequest): Promise<LeanAnswer> {
  return new Promise((resolve, reject) => {
    const { signal } = req;
    if (signal?.aborted) return reject(new LeanAbort());
    const outgoing = (url.protocol === 'https:' ? https : http).request(url, {
      method: req.method,
      headers: req.headers,
      ...(req.agent !== undefined ? { agent: req.agent } : {}),
      ...(req.insecureHTTPParser !== undefined ? { insecureHTTPParser: req.insecureHTTPParser } : {}),
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
      outgoing.destroy();
      fail(new LeanAbort());
    };
    signal?.addEventListener('abort', onAbort);
    // The query string stays out of messages: it can hold what a person searched their mailbox for.
    const where = `${url.origin}${url.pathname}`;
    outgoing.on('error', (err) => fail(new LeanTransportFailure(`request to ${where} failed, reason: ${err.message}`, err)));
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let ended = false;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) {
          outgoing.destroy();
          fail(new LeanTooLarge(req.maxBytes, res.statusCode));
        } else chunks.push(chunk);
      });
      res.on('error', (err) => fail(new LeanTransportFailure(`answer from ${where} failed, reason: ${err.message}`, err)));
      res.on('close', () => {
        if (!ended) fail(new LeanTransportFailure('Premature close', Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })));
      });
      res.on('end', () => {
        ended = true;
        if (settled) return;
        const status = res.statusCode ?? 0;
        const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        const coding = req.method === 'HEAD' || status === 204 || status === 304 ? undefined : (res.headers['content-encoding'] as string | undefined);
        decodeAnswer(raw, coding, req.maxBytes).then(
          (body) => settle(() => resolve({ status, statusText: res.statusMessage ?? '', rawHeaders: res.rawHeaders, body })),
          (err: unknown) => fail(err instanceof LeanTooLarge ? new LeanTooLarge(req.maxBytes, status) : err),
        );
      });
    });
    outgoing.end(req.body ?? undefined);
  });
}

/** The first value of header `name` (lower-case) in a raw header list. */
export function rawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) return rawHeaders[i + 1];
  return undefined;
}
