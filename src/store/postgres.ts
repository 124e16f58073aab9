import { Pool, type PoolClient } from 'pg';
import type { Logger } from '../logger';
import { type Db, type Queryable, withTimeout } from './db';

export interface PostgresOptions {
  url: string;
  poolMax: number;
  logger: Logger;
}

const clientQueryable = (client: PoolClient): Queryable => ({
  query: async <R extends object>(sql: string, params?: readonly unknown[]) => (await client.query(sql, params as unknown[] | undefined)).rows as R[],
  exec: async (sql) => {
    await client.query(sql);
  },
});

export function openPostgres(options: PostgresOptions): Db {
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolMax,
    // Fail fast instead of queueing requests behind a dead server: callers turn these into SERVICE_UNAVAILABLE.
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
    query_timeout: 20_000,
    application_name: 'hub',
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', (err) => options.logger.warn({ err }, 'postgres idle client error'));

  return {
    kind: 'postgres',
    url: options.url,
    query: async <R extends object>(sql: string, params?: readonly unknown[]) => (await pool.query(sql, params as unknown[] | undefined)).rows as R[],
    exec: async (sql) => {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(clientQueryable(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: Error) => {
          broken = rollbackErr; // the connection is unusable; destroy it rather than return it to the pool
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async ping(timeoutMs) {
      await withTimeout(pool.query('SELECT 1'), timeoutMs, 'database ping timed out');
    },
    close: () => pool.end(),
  };
}
