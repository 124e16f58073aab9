import { hostname } from 'node:os';
import pino, { type DestinationStream, type Logger } from 'pino';
import SonicBoom from 'sonic-boom';

export type { Logger };

/**
 * Secrets must never reach a log line. Two layers:
 *  1. pino's path redaction for the places we know carry credentials (headers, token fields);
 *  2. a last-line scrub of every serialized line: any JSON field whose name contains token/secret/password/
 *     authorization/cookie, any `Bearer …`/`ServiceSecret …` credential, Google token shapes, service keys, and the literal
 *     values of the configured secrets. Layer 2 catches what layer 1 cannot name in advance (an upstream error
 *     object that embeds request headers, a child binding, a message string).
 */

const REDACTED = '[Redacted]';

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.Authorization',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.token',
  '*.secret',
  '*.client_secret',
  '*.password',
  '*.code_verifier',
];

// Quick pre-check so the common line (no sensitive words at all) costs one regex test.
const SUSPICIOUS = /token|secret|passw|authoriz|cookie|bearer|ya29\.|1\/\/|verifier|hub_sk_|eyJ|\b[01]\.A/i;
/** A JSON field whose name contains one of these has its whole value replaced. */
const SENSITIVE_KEY_WORDS = ['token', 'secret', 'passw', 'authoriz', 'cookie', 'verifier'];
// Each pattern is linear: a fixed word, then one character class that the next token cannot extend.
const SCHEME_CREDENTIAL = /\b(Bearer|ServiceSecret|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const TOKEN_SHAPES = [
  /\bya29\.[A-Za-z0-9._-]+/g, // Google access tokens
  /\b1\/\/[A-Za-z0-9._-]{10,}/g, // Google refresh tokens
  /\bhub_sk_[A-Za-z0-9_-]+/g, // the Hub's own service keys (src/access)
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, // JWTs: Microsoft access and id tokens, the admin API's tokens
  /\b[01]\.A[A-Za-z0-9._*-]{20,}/g, // Microsoft refresh tokens (opaque, a version marker first)
];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Index just past the JSON string that opens at `start` (a quote), or -1 when it never closes. */
function stringEnd(line: string, start: number): number {
  for (let i = start + 1; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/** Index just past the JSON value that starts at `start`: a string, a (nested) object or array, or a literal. */
function valueEnd(line: string, start: number): number {
  const first = line[start];
  if (first === '"') return stringEnd(line, start);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let i = start; i < line.length; i++) {
      const c = line[i];
      if (c === '"') {
        i = stringEnd(line, i) - 1;
        if (i < 0) return -1;
      } else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    }
    return -1;
  }
  let i = start;
  while (i < line.length && line[i] !== ',' && line[i] !== '}' && line[i] !== ']') i++;
  return i;
}

const isSensitiveKey = (key: string) => {
  const lower = key.toLowerCase();
  return SENSITIVE_KEY_WORDS.some((word) => lower.includes(word));
};

/**
 * Replaces the value of every field whose name contains a sensitive word, in one pass over the line: each
 * character is looked at a bounded number of times, so the cost is linear whatever the line holds (a regex
 * doing the same backtracked quadratically on a long value dense in those words — 66 ms for a 16 KB URL).
 * Strings are skipped whole, so text inside a value is never mistaken for a field name.
 */
function redactSensitiveFields(line: string): string {
  const parts: string[] = [];
  let copied = 0;
  let i = line.indexOf('"');
  while (i !== -1) {
    const end = stringEnd(line, i);
    if (end === -1) break;
    let next = end;
    if (line.charCodeAt(end) === COLON && isSensitiveKey(line.slice(i + 1, end - 1))) {
      const after = valueEnd(line, end + 1);
      if (after === -1) break;
      parts.push(line.slice(copied, end + 1), `"${REDACTED}"`);
      copied = next = after;
    }
    i = line.indexOf('"', next);
  }
  if (copied === 0) return line;
  parts.push(line.slice(copied));
  return parts.join('');
}

export function scrubLine(line: string, literals: readonly string[] = []): string {
  let out = line;
  for (const literal of literals) {
    if (literal.length >= 8 && out.includes(literal)) out = out.split(literal).join(REDACTED);
  }
  if (!SUSPICIOUS.test(out)) return out;
  out = redactSensitiveFields(out);
  out = out.replace(SCHEME_CREDENTIAL, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/**
 * Error serializer that keeps only what helps debugging — never an error's config, headers or response body.
 * Duck-typed: errors from other realms (Node internals under a VM) are not `instanceof Error`.
 */
function serializeError(err: unknown, depth = 0): Record<string, unknown> {
  if (typeof err !== 'object' || err === null) return { message: String(err) };
  const e = err as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown; status?: unknown; cause?: unknown };
  const out: Record<string, unknown> = { type: typeof e.name === 'string' ? e.name : 'Error', message: String(e.message) };
  if (typeof e.stack === 'string') out.stack = e.stack;
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = e.code;
  if (typeof e.status === 'number') out.status = e.status;
  if (e.cause !== undefined && depth < 3) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/**
 * Log lines are gathered in memory and written in batches: when 32 KiB are pending, every 100 ms, at shutdown
 * (`flush`) and at exit. sonic-boom does the writing (partial writes, EAGAIN retries) synchronously, as pino does
 * by default. Measured per access line (perf instruction counts): pino's serialization ~18k instructions; the write
 * path on top of it ~28k with sonic-boom's async mode (its bookkeeping re-measures the whole pending chunk on every
 * small write), ~10k with a system call per line, ~7k batched.
 */
export function batchedStdout(fd = 1): DestinationStream & { flush(cb?: (err?: Error) => void): void } {
  const boom = new SonicBoom({ fd, sync: true });
  const pending: string[] = [];
  let pendingBytes = 0;
  const drain = () => {
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending.length = 0;
    pendingBytes = 0;
    try {
      boom.write(chunk);
    } catch {
      // stdout closed (EPIPE) or unwritable: logging must never take the service down
    }
  };
  setInterval(drain, 100).unref();
  process.once('exit', drain);
  return {
    write(line: string) {
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= 32 * 1024) drain();
    },
    flush(cb = () => {}) {
      drain();
      cb();
    },
  };
}

export interface LoggerOptions {
  level: string;
  /** Where lines go; defaults to batched asynchronous stdout. Tests pass a capturing stream. */
  destination?: DestinationStream;
  /** Literal values that must never be printed (the configured secrets and keys). */
  secrets?: readonly string[];
}

export function createLogger(options: LoggerOptions): Logger {
  const literals = [...(options.secrets ?? [])];
  return pino(
    {
      level: options.level,
      base: { service: 'hub', pid: process.pid, hostname: hostname() },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      serializers: { err: (e: unknown) => serializeError(e), error: (e: unknown) => serializeError(e) },
      hooks: { streamWrite: (line) => scrubLine(line, literals) },
    },
    options.destination ?? batchedStdout(),
  );
}

/**
 * For the one line per request: a child without path redaction. Its fields are a fixed set of primitives
 * (ids, method, redacted URL, status, timings), so the path walk is pure cost — while the line scrubber,
 * which also covers the caller-supplied strings in it (tool name, request id), still applies.
 */
export const accessLogger = (logger: Logger): Logger => logger.child({}, { redact: { paths: [] } });
