import { DatabaseError, Pool, type PoolClient, type QueryResultRow } from 'pg';
import type { Logger } from '../logger';
import { type Db, DatabaseTimeoutError, type Queryable, withTimeout } from './db';

export interface PostgresOptions {
  url: string;
  poolMax: number;
  logger: Logger;
  /**
   * The statement bound (HUB_DB_QUERY_TIMEOUT_MS): a statement, the wait for a connection included, that has not
   * answered within it fails with DatabaseTimeoutError — SERVICE_UNAVAILABLE to a caller, a retry to a writer.
   */
  queryTimeoutMs?: number;
}

/** HUB_DB_QUERY_TIMEOUT_MS's default, for a pool opened without the config (the audit receipt thread's). */
export const DEFAULT_QUERY_TIMEOUT_MS = 2_000;
/** exec(): migrations and scripts — DDL on a large table, or waiting for another replica's migration lock. */
const SCRIPT_TIMEOUT_MS = 20_000;
// pg-pool's connectionTimeoutMillis, waiting for a free connection / for a new one to answer.
const CONNECT_TIMEOUT_MESSAGES = ['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout'];

export function openPostgres(options: PostgresOptions): Db {
  const boundMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolMax,
    // Fail fast instead of queueing requests behind a dead server: a free connection (or a new one) within the
    // statement bound, or the database is unavailable.
    connectionTimeoutMillis: boundMs,
    idleTimeoutMillis: 30_000,
    // The server's own bound, for statements nobody waits for any more (their connection destroyed client-side).
    statement_timeout: 15_000,
    application_name: 'hub',
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', (err) => options.logger.warn({ err }, 'postgres idle client error'));

  /**
   * A pooled connection, and its release: destroyed when given an error. While checked out, a connection that
   * breaks emits 'error' besides failing its statement; the pool listens only while it is idle, so this does.
   */
  const connect = async (timeoutMs: number): Promise<{ client: PoolClient; release(err?: Error): void }> => {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      if (err instanceof Error && CONNECT_TIMEOUT_MESSAGES.some((m) => err.message.includes(m))) throw new DatabaseTimeoutError(timeoutMs, { cause: err });
      throw err;
    }
    client.on('error', ignore);
    return {
      client,
      release(err) {
        client.removeListener('error', ignore);
        client.release(err);
      },
    };
  };

  /**
   * One statement on `client` within `timeoutMs` (node-postgres' query_timeout). Past it the connection is left
   * in the middle of a statement the server may still be running, on a stream that may never answer: the caller
   * must destroy it (release it with the error), never reuse it.
   */
  const statement = async <R extends QueryResultRow>(client: PoolClient, sql: string, params: readonly unknown[] | undefined, timeoutMs: number) => {
    try {
      return (await client.query<R>({ text: sql, values: params as unknown[] | undefined, query_timeout: timeoutMs } as never)).rows;
    } catch (err) {
      if (err instanceof Error && err.message === 'Query read timeout') throw new DatabaseTimeoutError(timeoutMs, { cause: err });
      throw err;
    }
  };

  /** A statement on a pooled connection: the wait for that connection and the statement share `timeoutMs`. */
  const run = async <R extends QueryResultRow>(sql: string, params: readonly unknown[] | undefined, timeoutMs: number, connectMs = timeoutMs) => {
    const started = performance.now();
    const { client, release } = await connect(connectMs);
    const left = Math.floor(timeoutMs - (performance.now() - started));
    if (left <= 0) {
      release(); // nothing sent on it: the connection is fine, only the time is up
      throw new DatabaseTimeoutError(timeoutMs);
    }
    try {
      const rows = await statement<R>(client, sql, params, left);
      release();
      return rows;
    } catch (err) {
      // A statement the database refused leaves a healthy connection; one that timed out or lost its stream does not.
      release(err instanceof DatabaseError ? undefined : (err as Error));
      // The caller's bound, not what was left of it once connected.
      throw err instanceof DatabaseTimeoutError ? new DatabaseTimeoutError(timeoutMs, { cause: err.cause }) : err;
    }
  };

  const onClient = (client: PoolClient): Queryable => ({
    query: <R extends object>(sql: string, params?: readonly unknown[]) => statement(client, sql, params, boundMs) as Promise<R[]>,
    exec: async (sql) => {
      await statement(client, sql, undefined, SCRIPT_TIMEOUT_MS);
    },
  });

  return {
    kind: 'postgres',
    url: options.url,
    queryTimeoutMs: boundMs,
    query: <R extends object>(sql: string, params?: readonly unknown[]) => run(sql, params, boundMs) as Promise<R[]>,
    exec: async (sql) => {
      await run(sql, undefined, SCRIPT_TIMEOUT_MS, boundMs);
    },
    async transaction(fn) {
      const { client, release } = await connect(boundMs);
      let broken: Error | undefined;
      try {
        await statement(client, 'BEGIN', undefined, boundMs);
        const result = await fn(onClient(client));
        await statement(client, 'COMMIT', undefined, boundMs);
        return result;
      } catch (err) {
        if (err instanceof DatabaseTimeoutError) {
          broken = err; // no ROLLBACK on a stream that does not answer: destroying the connection rolls back
        } else {
          await statement(client, 'ROLLBACK', undefined, boundMs).catch((rollbackErr: Error) => {
            broken = rollbackErr; // the connection is unusable; destroy it rather than return it to the pool
          });
        }
        throw err;
      } finally {
        release(broken);
      }
    },
    async ping(timeoutMs) {
      // The pool's wait for a connection is the statement bound's; a shorter ping is held to its own.
      await withTimeout(run('SELECT 1', undefined, timeoutMs), timeoutMs, 'database ping timed out');
    },
    close: () => pool.end(),
  };
}

// The statement in flight fails with the same error; the event itself needs no handling.
const ignore = () => {};
