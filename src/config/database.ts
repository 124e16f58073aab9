import { z } from 'zod';
import { type LogLevel, observabilityVariables } from './observability';
import { parseEnv } from './parse-env';
import type { ServerEnv } from './server';
import { type EnvOf, integer, onOff, optionalString, url } from './variables';

/** Where the Hub keeps its data: a PostgreSQL server, or embedded PGlite in a directory of its own. */
export type DatabaseConfig = { kind: 'postgres'; url: string; poolMax: number; queryTimeoutMs: number } | { kind: 'pglite'; dataDir: string; thread: boolean };

export interface DatabaseSettings {
  database: DatabaseConfig;
  /** Apply pending migrations at start (else only check that none is pending: a separate `migrate` step runs them). */
  migrateOnStart: boolean;
}

export const databaseVariables = {
  DATABASE_URL: optionalString
    .pipe(url(['postgres:', 'postgresql:'], 'postgres').optional())
    .describe('`postgres://…` of a PostgreSQL server; unset, the Hub uses embedded PGlite in `HUB_DATA_DIR` (one process only).'),
  HUB_DATA_DIR: optionalString
    .transform((s) => s ?? './data')
    .describe('Embedded database directory, used only without `DATABASE_URL` (`memory://` keeps it in memory; a lock file refuses a second process).'),
  HUB_PGLITE_THREAD: onOff(true).describe(
    'Embedded PGlite runs on a thread of its own, so its statements (~0.3–1.2 ms of CPU each) never hold the event loop (`off`: in the request thread).',
  ),
  HUB_ALLOW_EMBEDDED_DB: onOff(false).describe(
    'With `NODE_ENV=production`, allow embedded PGlite anyway (put `HUB_DATA_DIR` on a volume: a recreated container loses every connection otherwise).',
  ),
  HUB_MIGRATE_ON_START: onOff(true).describe(
    'Apply pending migrations at start; `false` when a separate `migrate` step runs them (deploy/), and then a server whose schema is behind refuses to start.',
  ),
  HUB_DB_POOL_MAX: integer(10, 1, 500).describe('PostgreSQL connections per replica.'),
  HUB_DB_QUERY_TIMEOUT_MS: integer(2_000, 100, 60_000).describe(
    'PostgreSQL: how long one statement may take, the wait for a pooled connection included (ms); past it the database counts as unavailable (a call answers 503 `SERVICE_UNAVAILABLE` with `Retry-After`, an audit batch is retried) and the connection is dropped. Migrations have their own, longer bound.',
  ),
};

export type DatabaseEnv = EnvOf<typeof databaseVariables>;

/** PostgreSQL when DATABASE_URL is set, embedded PGlite otherwise. */
const databaseOf = (
  e: Pick<DatabaseEnv, 'DATABASE_URL' | 'HUB_DATA_DIR' | 'HUB_DB_POOL_MAX' | 'HUB_DB_QUERY_TIMEOUT_MS' | 'HUB_PGLITE_THREAD'>,
): DatabaseConfig =>
  e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.HUB_DB_POOL_MAX, queryTimeoutMs: e.HUB_DB_QUERY_TIMEOUT_MS }
    : { kind: 'pglite', dataDir: e.HUB_DATA_DIR, thread: e.HUB_PGLITE_THREAD };

/** A production start (NODE_ENV=production, as the image sets it) refuses embedded PGlite, whose data a recreated container loses with every connection in it. */
function productionProblems(e: DatabaseEnv & Pick<ServerEnv, 'NODE_ENV'>): string[] {
  if (e.NODE_ENV !== 'production' || e.DATABASE_URL || e.HUB_ALLOW_EMBEDDED_DB) return [];
  return [
    'DATABASE_URL: required with NODE_ENV=production (embedded PGlite lives in the container and is lost when it is recreated); ' +
      'set HUB_ALLOW_EMBEDDED_DB=true to run on PGlite anyway, with HUB_DATA_DIR on a volume',
  ];
}

export const databaseSection = {
  variables: databaseVariables,
  problems: productionProblems,
  load: (e: DatabaseEnv): DatabaseSettings => ({ database: databaseOf(e), migrateOnStart: e.HUB_MIGRATE_ON_START }),
};

const migrateSchema = z.object({
  DATABASE_URL: databaseVariables.DATABASE_URL,
  HUB_DATA_DIR: databaseVariables.HUB_DATA_DIR,
  HUB_DB_POOL_MAX: databaseVariables.HUB_DB_POOL_MAX,
  HUB_DB_QUERY_TIMEOUT_MS: databaseVariables.HUB_DB_QUERY_TIMEOUT_MS,
  HUB_PGLITE_THREAD: databaseVariables.HUB_PGLITE_THREAD,
  LOG_LEVEL: observabilityVariables.LOG_LEVEL,
});

/** For `npm run migrate` (src/cli/migrate.ts): only the database settings — no secret is needed to migrate. */
export function loadMigrateConfig(env: Record<string, string | undefined>): { database: DatabaseConfig; logLevel: LogLevel } {
  const e = parseEnv(migrateSchema, env);
  return { database: databaseOf(e), logLevel: e.LOG_LEVEL };
}
