import type { MessagePort } from 'node:worker_threads';

/**
 * The one database interface the Hub codes against. Two implementations run the same SQL: embedded PGlite
 * (WASM Postgres, a data directory on disk — nothing to install) and node-postgres against a real server.
 */

export interface Queryable {
  /**
   * Runs one parameterised statement ($1, $2…) and returns its rows. On PostgreSQL it answers within the
   * statement bound (HUB_DB_QUERY_TIMEOUT_MS, the wait for a connection included) or fails with
   * DatabaseTimeoutError: a database that hangs is a database that is down.
   */
  query<R extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of one or more statements without parameters (migrations): bounded by a script's longer timeout. */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * PostgreSQL: the connection string, for a second pool to the same database (the audit receipt thread). Held in
   * memory only: it may carry a password, so it is never logged.
   */
  readonly url?: string;
  /** PostgreSQL: the statement bound it was opened with (HUB_DB_QUERY_TIMEOUT_MS), for a second pool to keep it. */
  readonly queryTimeoutMs?: number;
  /**
   * Embedded PGlite on its own thread: a new port to that thread, for another thread (the audit receipt thread) to
   * send its statements straight there (pgliteOverPort). Absent on PostgreSQL and on PGlite in process.
   */
  readonly channel?: () => MessagePort;
  /**
   * Embedded PGlite on its own thread: resolves, with the reason, if that thread dies (a WASM abort, an uncaught
   * error). The database is then gone for this process — every statement fails as unavailable — and only a new
   * process reopens it (server.ts stops the Hub so that a supervisor starts one). Never resolves on close().
   */
  readonly lost?: Promise<Error>;
  /** Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers `SELECT 1` within `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

const DATABASE_TIMEOUT_CODE = 'HUB_DB_TIMEOUT';

/**
 * A statement that did not answer within its bound (or no connection within it): the database is treated as
 * unavailable — a network partition or a stalled server keeps connections open and answers nothing, and waiting
 * longer helps no caller. Its connection is destroyed, never reused.
 */
export class DatabaseTimeoutError extends Error {
  override name = 'DatabaseTimeoutError';
  readonly code = DATABASE_TIMEOUT_CODE;
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`database statement timed out after ${timeoutMs} ms`, options);
  }
}

const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', 'EAI_AGAIN', DATABASE_TIMEOUT_CODE]);
// SQLSTATE classes/codes meaning "the server cannot serve you right now" rather than "your query is wrong"; 57014
// is a statement the server cancelled (its statement_timeout).
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300', '53400', '40001', '40P01']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Query read timeout', // node-postgres' own query_timeout
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection refused',
  'database ping timed out',
  'PGlite is closed',
];

/**
 * True when an error means the database is unreachable or overloaded (worth a retry), not that a query is wrong.
 * Duck-typed on purpose: socket errors may come from another realm, where `instanceof Error` is false.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const { code, message, cause, errors } = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  if (cause !== undefined && isDatabaseUnavailable(cause, depth + 1)) return true;
  // AggregateError from a dual-stack connect that failed on every address
  return Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1));
}

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
