import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMigrations } from '../../src/cli/migrate';
import { startHub } from '../../src/server';
import { MIGRATIONS } from '../../src/store/migrations';
import { drivers, openTestDb } from '../helpers/db';
import { testConfig } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/**
 * The migrate command deploy/ runs once before the replicas, and replicas that leave migrations to it
 * (HUB_MIGRATE_ON_START=false): they refuse a schema that is behind instead of serving on it.
 */
// The PGlite case opens an on-disk database three times (two migrate runs, then a Hub): seconds each on a
// loaded 2-core machine, so the allowance is generous.
jest.setTimeout(90_000);

describe.each(drivers())('the migrate command on %s', (driver) => {
  let databaseEnv: Record<string, string>;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    if (driver === 'postgres') {
      const t = await openTestDb('postgres', { migrate: false });
      await t.db.close(); // only its schema is kept; the command and the Hub open their own pools
      databaseEnv = { DATABASE_URL: t.url! };
      cleanup = () => t.drop().catch(() => undefined);
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'hub-migrate-'));
      databaseEnv = { HUB_DATA_DIR: dir };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
  });
  afterEach(() => cleanup());

  it('when a replica that does not migrate meets an empty database, then it refuses to start and names the migrate command', async () => {
    await expect(startHub(testConfig({ ...databaseEnv, HUB_MIGRATE_ON_START: 'false' }), { logger: captureLogs().logger })).rejects.toThrow(
      /the database lacks migrations 0001_\w+.* and HUB_MIGRATE_ON_START=false: run the migrate command first/,
    );
  });

  it('when migrate has run, then it reports what it applied, a second run applies nothing, and the replica serves', async () => {
    const printed: string[] = [];
    expect(await runMigrations(databaseEnv, (l) => printed.push(l))).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await runMigrations(databaseEnv, (l) => printed.push(l))).toEqual([]);
    expect(printed).toEqual([
      `applied ${MIGRATIONS.length} migration(s): ${MIGRATIONS.map((m) => m.name).join(', ')}`,
      'database schema is current; nothing to apply',
    ]);
    const hub = await startHub(testConfig({ ...databaseEnv, HUB_MIGRATE_ON_START: 'false' }), { logger: captureLogs().logger });
    try {
      expect((await fetch(`${hub.url}/readyz`)).status).toBe(200);
    } finally {
      await hub.close();
    }
  });
});
