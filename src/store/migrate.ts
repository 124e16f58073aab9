import { createHash } from 'node:crypto';
import { Umzug } from 'umzug';
import type { Logger } from '../logger';
import type { Db, Queryable } from './db';
import { MIGRATIONS } from './migrations';

/**
 * Applies pending migrations at start. All of them run in one transaction behind a transaction-scoped advisory
 * lock, so replicas starting together apply each migration exactly once, and a failure leaves nothing
 * half-applied. A shipped migration whose text changed is refused (forward-only means never edited).
 */

const LOCK_ID = 7_263_544_331; // arbitrary constant shared by every Hub replica

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex');

export async function migrate(db: Db, logger: Logger, migrations: readonly { name: string; sql: string }[] = MIGRATIONS): Promise<string[]> {
  return db.transaction(async (tx) => {
    // A script's bound, not a statement's: another replica may hold the lock while it migrates.
    await tx.exec(`SELECT pg_advisory_xact_lock(${LOCK_ID})`);
    await tx.exec(`CREATE TABLE IF NOT EXISTS hub_migrations (
      name       text        PRIMARY KEY,
      checksum   text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);

    const applied = await tx.query<{ name: string; checksum: string }>('SELECT name, checksum FROM hub_migrations');
    const known = new Map(migrations.map((m) => [m.name, checksum(m.sql)]));
    for (const row of applied) {
      const expected = known.get(row.name);
      if (expected === undefined) {
        // A newer replica migrated ahead of this one (rolling deploy). Additive migrations keep us compatible.
        logger.warn({ migration: row.name }, 'database has a migration this version does not know');
      } else if (expected !== row.checksum) {
        throw new MigrationError(`migration ${row.name} was changed after it was applied; add a new migration instead`);
      }
    }

    const umzug = new Umzug<Queryable>({
      migrations: migrations.map((m) => ({
        name: m.name,
        up: async ({ context }) => {
          await context.exec(m.sql);
          await context.query('INSERT INTO hub_migrations (name, checksum) VALUES ($1, $2)', [m.name, checksum(m.sql)]);
        },
      })),
      context: tx,
      storage: {
        executed: async ({ context }) => (await context.query<{ name: string }>('SELECT name FROM hub_migrations ORDER BY name')).map((r) => r.name),
        // Recorded by the migration itself, in the same transaction as its DDL.
        logMigration: async () => {},
        unlogMigration: async () => {
          throw new MigrationError('migrations are forward-only');
        },
      },
      logger: undefined,
    });
    const done = (await umzug.up()).map((m) => m.name);
    if (done.length > 0) logger.info({ migrations: done }, 'applied database migrations');
    return done;
  });
}

/**
 * For a server that does not migrate (HUB_MIGRATE_ON_START=false): the migrations this version needs that the
 * database lacks, read without locking or writing anything. An empty list means the schema is current.
 */
export async function pendingMigrations(db: Db, migrations: readonly { name: string; sql: string }[] = MIGRATIONS): Promise<string[]> {
  const [table] = await db.query<{ present: boolean }>("SELECT to_regclass('hub_migrations') IS NOT NULL AS present");
  if (!table?.present) return migrations.map((m) => m.name);
  const applied = await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM hub_migrations');
  const byName = new Map(applied.map((r) => [r.name, r.checksum]));
  for (const m of migrations) {
    const sum = byName.get(m.name);
    if (sum !== undefined && sum !== checksum(m.sql))
      throw new MigrationError(`migration ${m.name} was changed after it was applied; add a new migration instead`);
  }
  return migrations.filter((m) => !byName.has(m.name)).map((m) => m.name);
}
