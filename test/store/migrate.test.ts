import { MigrationError, migrate } from '../../src/store/migrate';
import { MIGRATIONS } from '../../src/store/migrations';
import { drivers, openTestDb, type TestDb } from '../helpers/db';
import { captureLogs } from '../helpers/logs';

describe.each(drivers())('migrations on %s', (driver) => {
  let t: TestDb;
  beforeEach(async () => {
    t = await openTestDb(driver, { migrate: false });
  });
  afterEach(() => t.drop());

  it('when applied twice, then the second run applies nothing and each migration is recorded once', async () => {
    const { logger } = captureLogs();
    expect(await migrate(t.db, logger)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await migrate(t.db, logger)).toEqual([]);
    const rows = await t.db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM hub_migrations');
    expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when several replicas migrate at once, then all succeed and each migration is applied exactly once', async () => {
    const { logger } = captureLogs();
    const results = await Promise.all([migrate(t.db, logger), migrate(t.db, logger), migrate(t.db, logger)]);
    expect(results.flat().sort()).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it('when a shipped migration was edited, then start-up is refused', async () => {
    const { logger } = captureLogs();
    await migrate(t.db, logger);
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    await expect(migrate(t.db, logger, edited)).rejects.toThrow(MigrationError);
  });

  it('when a migration fails, then nothing of the batch is applied or recorded', async () => {
    const { logger } = captureLogs();
    const broken = [...MIGRATIONS, { name: '9999_broken', sql: 'CREATE TABLE ok_table (id int); SELECT * FROM no_such_table;' }];
    await expect(migrate(t.db, logger, broken)).rejects.toThrow(/no_such_table/);
    const tables = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('ok_table', 'integration_credentials', 'hub_migrations') AND table_schema = current_schema()",
    );
    expect(tables[0]!.n).toBe(0);
  });

  it('when the database knows a newer migration, then this version starts and warns', async () => {
    const logs = captureLogs();
    await migrate(t.db, logs.logger, [...MIGRATIONS, { name: '9000_future', sql: 'SELECT 1' }]);
    await migrate(t.db, logs.logger);
    expect(logs.entries().some((e) => e.msg === 'database has a migration this version does not know')).toBe(true);
  });
});
