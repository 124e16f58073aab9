import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDatabaseUnavailable, type Db } from '../../src/store/db';
import { IN_MEMORY, openPglite } from '../../src/store/pglite';
import { pgliteThreadEntry } from '../../src/store/pglite-proxy';

/**
 * Embedded PGlite on its own thread (HUB_PGLITE_THREAD, the default) must be the same database to the Hub as
 * PGlite in process: the same rows and types back, the same errors (SQLSTATE and constraint kept), the same
 * transactions, the same "closed" error once closed. Every case runs against both.
 */
const modes = [
  ['on its own thread', true],
  ['in process', false],
] as const;

it('when the Hub is built, then the thread entry exists (the test command builds first), so the thread mode is what runs', () => {
  expect(pgliteThreadEntry()).toMatch(/dist\/src\/store\/pglite-thread\.js$/);
});

describe.each(modes)('embedded PGlite %s', (_label, thread) => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite(IN_MEMORY, { thread });
  });
  beforeEach(() => db.exec('DROP TABLE IF EXISTS t; CREATE TABLE t (id int PRIMARY KEY, b bytea, j jsonb, at timestamptz, n int8)'));
  afterAll(() => db.close());

  it('when rows are written and read, then values come back with their types (bytea as bytes, jsonb as objects, timestamps as Dates)', async () => {
    await db.query('INSERT INTO t VALUES ($1, $2, $3, $4, $5)', [1, Buffer.from('héllo'), { a: [1, 'x', null] }, new Date(86_400_000), 2 ** 40]);
    const [row] = await db.query<{ id: number; b: Uint8Array; j: unknown; at: Date; n: unknown }>('SELECT * FROM t');
    expect(row!.id).toBe(1);
    expect(row!.b).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(row!.b).toString()).toBe('héllo');
    expect(row!.b.byteLength).toBe(row!.b.buffer.byteLength); // a copy of its own, not a view into a larger buffer
    expect(row!.j).toEqual({ a: [1, 'x', null] });
    expect(row!.at).toEqual(new Date(86_400_000));
    expect(Number(row!.n)).toBe(2 ** 40);
  });

  it('when a statement violates a constraint, then the error keeps its SQLSTATE and constraint name', async () => {
    await db.query('INSERT INTO t (id) VALUES (1)');
    await expect(db.query('INSERT INTO t (id) VALUES (1)')).rejects.toMatchObject({
      code: '23505',
      constraint: 't_pkey',
      message: expect.stringContaining('duplicate key value violates unique constraint'),
    });
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });
  });

  it('when a transaction resolves, then it commits; when it throws, then nothing of it stays and the caller sees its own error', async () => {
    await expect(db.transaction(async (tx) => (await tx.query('INSERT INTO t (id) VALUES (1) RETURNING id'))[0])).resolves.toEqual({ id: 1 });
    const boom = new Error('boom');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (2)');
        throw boom;
      }),
    ).rejects.toBe(boom);
    // a statement failing inside: the transaction is rolled back, the statement's error comes out
    await expect(db.transaction((tx) => tx.query('INSERT INTO t (id) VALUES (1)'))).rejects.toMatchObject({ code: '23505' });
    expect(await db.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }]);
  });

  it('when a statement arrives while a transaction is open, then it runs after the transaction, as on one connection', async () => {
    const order: string[] = [];
    await Promise.all([
      db.transaction(async (tx) => {
        await tx.query('SELECT pg_sleep(0.05)');
        await tx.query('INSERT INTO t (id) VALUES (1)');
        order.push('transaction');
      }),
      db.query('INSERT INTO t (id) VALUES (2)').then(() => order.push('statement')),
    ]);
    expect(order).toEqual(['transaction', 'statement']);
    expect(await db.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 2 }]);
  });

  it('when closed, then every later call fails as "database unavailable", and closing again is harmless', async () => {
    const other = await openPglite(IN_MEMORY, { thread });
    await other.ping(1_000);
    await other.close();
    const err = await other.query('SELECT 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    await other.close();
  });
});

describe('embedded PGlite on its own thread, in memory', () => {
  it('when a parameter cannot be copied to the thread, then that call fails with an error and the database keeps serving', async () => {
    const db = await openPglite(IN_MEMORY, { thread: true });
    try {
      await expect(db.query('SELECT $1::text', [() => 1])).rejects.toBeInstanceOf(Error);
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});

describe('embedded PGlite on its own thread, on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-pglite-thread-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when reopened after close, then the rows are there; while open, a second opener is refused', async () => {
    const first = await openPglite(dir, { thread: true });
    await first.exec('CREATE TABLE kept (v text)');
    await first.query('INSERT INTO kept VALUES ($1)', ['still here']);
    await expect(openPglite(dir, { thread: true })).rejects.toThrow(/is in use by process/);
    await expect(openPglite(dir, { thread: false })).rejects.toThrow(/is in use by process/);
    await first.close();
    const again = await openPglite(dir, { thread: true });
    expect(await again.query('SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
    await again.close();
  });
});

describe("embedded PGlite's thread dying", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-pglite-lost-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** An uncaught error on PGlite's thread, as a WASM abort would be: a message it has no case for throws there. */
  const crash = (db: Db) => db.channel!().postMessage({ id: 1, type: 'no-such-request' });

  it('when the thread dies, then `lost` gives the reason, every call fails as "database unavailable", and close still frees the directory', async () => {
    const db = await openPglite(dir, { thread: true });
    await db.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$written before$$)');
    crash(db);
    const reason = await db.lost!;
    expect(reason.message).toMatch(/^PGlite is closed: unknown message/);
    const err = await db.query('SELECT 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    await db.close();
    const again = await openPglite(dir, { thread: true }); // what a restarted process does: the rows are there
    expect(await again.query('SELECT v FROM kept')).toEqual([{ v: 'written before' }]);
    await again.close();
  });

  it('when the database is closed as usual, then `lost` never resolves', async () => {
    const db = await openPglite(IN_MEMORY, { thread: true });
    await db.close();
    const settled = await Promise.race([db.lost!.then(() => 'lost'), new Promise((r) => setTimeout(() => r('quiet'), 200))]);
    expect(settled).toBe('quiet');
  });
});
