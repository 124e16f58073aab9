import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Db } from './db';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, embedded PGlite otherwise. */
export async function openDatabase(database: Config['database'], logger: Logger): Promise<Db> {
  if (database.kind === 'postgres') return openPostgres({ url: database.url, poolMax: database.poolMax, queryTimeoutMs: database.queryTimeoutMs, logger });
  return openPglite(database.dataDir, { thread: database.thread });
}
