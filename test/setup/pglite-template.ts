import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/store/db';
import { migrate } from '../../src/store/migrate';
import { createPglite } from '../../src/store/pglite-create';
import { captureLogs } from '../helpers/logs';

/**
 * One migrated PGlite per run. A fresh PGlite runs initdb (~1.5 s of CPU, 3–18 s on a busy machine) and then
 * every migration; a copy loaded from this tarball (PGlite's `loadDataDir`) opens in ~0.3 s. Measured against
 * copying a data directory and opening it: about the same, with files to clean up — the tarball is one file,
 * read from the page cache, and the copy lives in memory like the database it replaces.
 *
 * The path travels to the test workers in the environment (they are started after the global setup); a file run
 * without it (no global setup) opens fresh databases as before.
 */
export const TEMPLATE_ENV = 'HUB_TEST_PGLITE_TEMPLATE';
const OWNER_ENV = 'HUB_TEST_PGLITE_TEMPLATE_OWNER';

export async function buildPgliteTemplate(file: string): Promise<void> {
  const pg = await createPglite(null);
  try {
    const db: Db = {
      kind: 'pglite',
      query: async (sql, params) => (await pg.query<never>(sql, params as unknown[] | undefined)).rows,
      exec: async (sql) => void (await pg.exec(sql)),
      transaction: (fn) =>
        pg.transaction((tx) =>
          fn({
            query: async (sql, params) => (await tx.query<never>(sql, params as unknown[] | undefined)).rows,
            exec: async (sql) => void (await tx.exec(sql)),
          }),
        ),
      ping: async () => void (await pg.query('SELECT 1')),
      close: () => pg.close(),
    };
    await migrate(db, captureLogs().logger);
    const dump = await pg.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
  } finally {
    await pg.close();
  }
}

/** Jest global setup of the tiers with databases: migrates the run's template and hands its path to the workers. */
export default async function setUpPgliteTemplate(): Promise<void> {
  if (process.env[TEMPLATE_ENV]) return; // a run of several tiers: built once
  const dir = mkdtempSync(join(tmpdir(), 'hub-test-pglite-'));
  const file = join(dir, 'migrated.tar');
  await buildPgliteTemplate(file);
  process.env[TEMPLATE_ENV] = file;
  process.env[OWNER_ENV] = String(process.pid); // the teardown removes only what this process built
}

/** Jest global teardown: the run's template goes with the run. */
export function removePgliteTemplate(): void {
  const file = process.env[TEMPLATE_ENV];
  if (!file || process.env[OWNER_ENV] !== String(process.pid)) return;
  rmSync(join(file, '..'), { recursive: true, force: true });
  delete process.env[TEMPLATE_ENV];
  delete process.env[OWNER_ENV];
}
