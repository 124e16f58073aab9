import { DatabaseTimeoutError, isDatabaseUnavailable } from '../../src/store/db';
import type { Db } from '../../src/store/db';
import { openPostgres } from '../../src/store/postgres';
import { type TestDb, openTestDb } from '../helpers/db';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';
import { TcpProxy } from '../helpers/proxy';

/**
 * The statement bound of the PostgreSQL driver (HUB_DB_QUERY_TIMEOUT_MS), against a server behind a TCP proxy
 * that black-holes it: connections stay open, nothing is forwarded. A statement on a connection that was
 * working, one that needs a new connection, and a transaction all fail within the bound as the database
 * unavailable, and the pool serves again once the server answers — no connection left mid-statement is reused.
 */

const BOUND_MS = 500;

const { databaseUrl } = services();
(databaseUrl ? describe : describe.skip)('when PostgreSQL stops answering with its connections left open', () => {
  let base: TestDb;
  let proxy: TcpProxy;
  let db: Db;

  beforeAll(async () => {
    base = await openTestDb('postgres', { migrate: false });
    const target = new URL(base.url!);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.up();
    db = openPostgres({ url: proxy.urlFor(base.url!), poolMax: 2, queryTimeoutMs: BOUND_MS, logger: captureLogs().logger });
  });
  afterEach(() => proxy.resume());
  afterAll(async () => {
    await db.close();
    await proxy.cut();
    await base.drop();
  });

  /** The statement's rejection and how long it took. */
  const timed = async (work: () => Promise<unknown>) => {
    const t0 = performance.now();
    const err = await work().then(
      () => undefined,
      (e: unknown) => e,
    );
    return { err, ms: performance.now() - t0 };
  };

  test('then a statement, on a warm connection or a new one, and a transaction fail within the bound as unavailable, and the pool recovers', async () => {
    await db.query('SELECT 1'); // one warm connection in the pool
    proxy.blackhole();
    const [warm, cold] = await Promise.all([timed(() => db.query('SELECT 1')), timed(() => db.query('SELECT 2'))]); // the second needs a new connection
    const tx = await timed(() => db.transaction((q) => q.query('SELECT 1')));
    for (const { err, ms } of [warm, cold, tx]) {
      expect(err).toBeInstanceOf(DatabaseTimeoutError);
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect((err as Error).message).toBe(`database statement timed out after ${BOUND_MS} ms`);
      expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 5);
      expect(ms).toBeLessThan(BOUND_MS + 2_000); // the bound, with a loaded machine's margin: never the driver's 20 s
    }

    proxy.resume();
    // Bytes sent into the hole are lost: a connection reused mid-statement would never answer again.
    for (let i = 0; i < 5; i++) await expect(db.query<{ n: number }>('SELECT $1::int AS n', [i])).resolves.toEqual([{ n: i }]);
    await expect(db.transaction((q) => q.query<{ ok: boolean }>('SELECT true AS ok'))).resolves.toEqual([{ ok: true }]);
  });

  test('when the server refuses a statement, then the error is the server’s, not an outage, and the connection stays in use', async () => {
    const err = await db.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect((err as { code?: string }).code).toBe('42P01');
    await expect(db.query<{ n: number }>('SELECT 1 AS n')).resolves.toEqual([{ n: 1 }]);
  });
});
