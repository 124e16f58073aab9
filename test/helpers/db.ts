import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Db } from '../../src/store/db';
import { migrate } from '../../src/store/migrate';
import { openPglite } from '../../src/store/pglite';
import { openPostgres } from '../../src/store/postgres';
import { pgliteTemplate, services } from './env';
import { captureLogs } from './logs';

export type DriverKind = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too whenever DATABASE_URL is set (always in CI). */
export function drivers(): DriverKind[] {
  return services().databaseUrl ? ['pglite', 'postgres'] : ['pglite'];
}

/** The driver component tests use: the real server when there is one. */
export const preferredDriver = (): DriverKind => (services().databaseUrl ? 'postgres' : 'pglite');

export interface TestDb {
  db: Db;
  /** A connection string selecting this test's schema (postgres only): for a second Hub on the same data. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database: in-memory PGlite (a copy of the run's migrated one), or a schema of its own on the PostgreSQL server so test
 * files running in parallel never see each other's rows.
 */
export async function openTestDb(kind: DriverKind, options: { migrate?: boolean } = {}): Promise<TestDb> {
  const logger = captureLogs().logger;
  let testDb: TestDb;
  const wantMigrated = options.migrate !== false;
  let migrated = false;
  if (kind === 'pglite') {
    // A copy of the run's migrated database when there is one: no initdb, no migrations (~0.3 s, not ~1.5 s).
    const from = wantMigrated ? pgliteTemplate() : undefined;
    const db = await openPglite('memory://', from ? { from } : {});
    migrated = from !== undefined;
    testDb = { db, url: undefined, drop: () => db.close() };
  } else {
    const base = services().databaseUrl!;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(base);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const db = openPostgres({ url: url.toString(), poolMax: 5, logger });
    testDb = {
      db,
      url: url.toString(),
      drop: async () => {
        await db.close();
        const c = new Client({ connectionString: base });
        await c.connect();
        try {
          // Files running in parallel drop their schemas at the same moments, and PostgreSQL may end one DROP as a
          // deadlock's victim (40P01), which is to be tried again ("Explicit Locking", deadlocks): a few times.
          for (let attempt = 1; ; attempt++) {
            try {
              await c.query(`DROP SCHEMA ${schema} CASCADE`);
              break;
            } catch (err) {
              if ((err as { code?: string }).code !== '40P01' || attempt === 5) throw err;
              await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
            }
          }
        } finally {
          await c.end();
        }
      },
    };
  }
  if (wantMigrated && !migrated) await migrate(testDb.db, logger);
  return testDb;
}

/** A database nobody answers for: a pool aimed at a closed port (connection refused, as in an outage). */
export const unreachableDb = (): Db => openPostgres({ url: 'postgres://postgres@127.0.0.1:1/unreachable', poolMax: 2, logger: captureLogs().logger });
