import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createPostgresIdempotencyStore } from '../../src/protection/idempotency-postgres';
import { createRedisIdempotencyStore } from '../../src/protection/idempotency-redis';
import {
  type BeginResult,
  type IdempotencyKey,
  type IdempotencyStore,
  type Lease,
  classifyFound,
  fingerprintOf,
  storageKey,
} from '../../src/protection/idempotency-store';
import { isDatabaseUnavailable } from '../../src/store/db';
import { openRedis } from '../../src/store/redis';
import { drivers, openTestDb, type TestDb, unreachableDb } from '../helpers/db';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

// In CI a missing REDIS_URL or DATABASE_URL throws here: the file fails rather than skipping a suite.
const { redisUrl } = services();

const LONG_LEASE_MS = 30_000;
const TTL_S = 86_400;

const aKey = (overrides: Partial<IdempotencyKey> = {}): IdempotencyKey => ({
  customerId: randomUUID(),
  tool: 'gmail_send_message',
  requestId: `req-${randomUUID()}`,
  ...overrides,
});

/** What a call with `fingerprint` sees under `key` (look, then classify), as the deduplicated guard does. */
const peek = async (store: IdempotencyStore, key: IdempotencyKey, fingerprint: string) => classifyFound(await store.look(key), fingerprint);

const fpA = fingerprintOf({ to: 'a@example.com', subject: 'hello' }, null);
const fpB = fingerprintOf({ to: 'b@example.com', subject: 'hello' }, null);

function leaseOf(result: BeginResult): Lease {
  if (result.state !== 'acquired') throw new Error(`expected acquired, got ${JSON.stringify(result)}`);
  return result.lease;
}

/** One backend the behavioural suite runs against: a factory of stores sharing one Redis or one database. */
interface Backend {
  store(ttlS?: number): IdempotencyStore;
  /** Storage keys of every record this backend holds right now (Redis: without the prefix). */
  keys(): Promise<string[]>;
  /** Deletes a record behind the store's back (what a Redis restart without persistence leaves). */
  lose(key: IdempotencyKey): Promise<void>;
  close(): Promise<void>;
}

async function redisBackend(): Promise<Backend> {
  const client = await openRedis(redisUrl!, captureLogs().logger);
  const prefix = `hub-test-${randomBytes(6).toString('hex')}:`;
  const scan = async () => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found;
  };
  return {
    // resetSuspectMs 0: this suite's fresh prefix has a brand-new epoch, whose own test is below.
    store: (ttlS = TTL_S) => createRedisIdempotencyStore(client, { ttlS, prefix, resetSuspectMs: 0 }),
    keys: async () => (await scan()).map((k) => k.slice(prefix.length)).filter((k) => k.startsWith('idem:')),
    lose: async (key) => {
      await client.del(prefix + storageKey(key));
    },
    async close() {
      const left = await scan();
      if (left.length > 0) await client.del(...left);
      client.disconnect();
    },
  };
}

async function postgresBackend(driver: 'pglite' | 'postgres'): Promise<Backend & { t: TestDb }> {
  const t = await openTestDb(driver);
  return {
    t,
    store: (ttlS = TTL_S) => createPostgresIdempotencyStore(t.db, { ttlS }),
    keys: async () => (await t.db.query<{ key: string }>('SELECT key FROM idempotency_records')).map((r) => r.key),
    lose: async (key) => {
      await t.db.query('DELETE FROM idempotency_records WHERE key = $1', [storageKey(key)]);
    },
    close: () => t.drop(),
  };
}

const backends: [string, () => Promise<Backend>][] = [
  ...(redisUrl ? [['redis', redisBackend] as [string, () => Promise<Backend>]] : []),
  ...drivers().map((d): [string, () => Promise<Backend>] => [d, () => postgresBackend(d)]),
];

describe.each(backends)('idempotency store on %s', (_name, open) => {
  let backend: Backend;
  let store: IdempotencyStore;

  beforeAll(async () => {
    backend = await open();
    store = backend.store();
  });
  afterAll(() => backend.close());

  it('when a key is new, then the first begin acquires a lease', async () => {
    const result = await store.begin(aKey(), fpA, LONG_LEASE_MS);
    expect(result).toEqual({ state: 'acquired', lease: { key: expect.any(String), owner: expect.any(String), fingerprint: fpA }, earlier: null });
  });

  it('when ten calls begin the same key at once, then exactly one acquires and the others are in progress', async () => {
    const key = aKey();
    const results = await Promise.all(Array.from({ length: 10 }, () => store.begin(key, fpA, LONG_LEASE_MS)));
    expect(results.filter((r) => r.state === 'acquired')).toHaveLength(1);
    const busy = results.filter((r) => r.state === 'in_progress');
    expect(busy).toHaveLength(9);
    for (const r of busy) {
      expect(r).toEqual({ state: 'in_progress', retryAfterS: expect.any(Number) });
      const { retryAfterS } = r as { retryAfterS: number };
      expect(retryAfterS).toBeGreaterThanOrEqual(1);
      expect(retryAfterS).toBeLessThanOrEqual(LONG_LEASE_MS / 1000);
    }
  });

  it('when a call completed, then the same key and fingerprint replays its outcome', async () => {
    const key = aKey();
    const outcome = { ok: true, data: { id: 'msg-1', labels: [], nested: { n: 1.5, s: 'é\u0000x' } } };
    await store.complete(leaseOf(await store.begin(key, fpA, LONG_LEASE_MS)), outcome);
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: expect.objectContaining({ ok: true }) });
    const replay = (await store.begin(key, fpA, LONG_LEASE_MS)) as unknown as { outcome: typeof outcome };
    expect(replay.outcome.data.id).toBe('msg-1');
    expect(replay.outcome.data.labels).toEqual([]);
    expect(replay.outcome.data.nested.n).toBe(1.5);
    // Postgres cannot hold NUL in jsonb: it becomes U+FFFD there; Redis keeps the text as given.
    expect(['é\u0000x', 'é\ufffdx']).toContain(replay.outcome.data.nested.s);
  });

  it('when the fingerprint differs, then begin is a mismatch while running and after done', async () => {
    const key = aKey();
    const lease = leaseOf(await store.begin(key, fpA, LONG_LEASE_MS));
    expect(await store.begin(key, fpB, LONG_LEASE_MS)).toEqual({ state: 'mismatch' });
    await store.complete(lease, { ok: true });
    expect(await store.begin(key, fpB, LONG_LEASE_MS)).toEqual({ state: 'mismatch' });
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: { ok: true } });
  });

  it('when the same request id is used by another customer or tool, then each has its own record', async () => {
    const key = aKey();
    await store.complete(leaseOf(await store.begin(key, fpA, LONG_LEASE_MS)), { ok: true });
    expect((await store.begin({ ...key, customerId: randomUUID() }, fpB, LONG_LEASE_MS)).state).toBe('acquired');
    expect((await store.begin({ ...key, tool: 'calendar_create_event' }, fpB, LONG_LEASE_MS)).state).toBe('acquired');
  });

  it('when a lease is released, then the next begin acquires and may use other inputs', async () => {
    const key = aKey();
    await store.release(leaseOf(await store.begin(key, fpA, LONG_LEASE_MS)));
    const next = leaseOf(await store.begin(key, fpB, LONG_LEASE_MS));
    expect(await store.begin(key, fpB, LONG_LEASE_MS)).toEqual({ state: 'in_progress', retryAfterS: expect.any(Number) });
    await store.release(next);
    expect(await backend.keys()).not.toContain(storageKey(key));
  });

  it('when a lease expires, then the same fingerprint takes over and another fingerprint is still a mismatch', async () => {
    const key = aKey();
    const first = leaseOf(await store.begin(key, fpA, 150));
    expect((await store.begin(key, fpA, 150)).state).toBe('in_progress');
    await sleep(300);
    expect(await store.begin(key, fpB, LONG_LEASE_MS)).toEqual({ state: 'mismatch' });
    const second = leaseOf(await store.begin(key, fpA, LONG_LEASE_MS));
    expect(second.owner).not.toBe(first.owner);
    expect(second.key).toBe(first.key);
  });

  it('when a lost lease completes or releases, then the new owner’s record is untouched', async () => {
    const key = aKey();
    const lost = leaseOf(await store.begin(key, fpA, 150));
    await sleep(300);
    const current = leaseOf(await store.begin(key, fpA, LONG_LEASE_MS));

    await store.complete(lost, { from: 'lost' });
    await store.release(lost);
    expect((await store.begin(key, fpA, LONG_LEASE_MS)).state).toBe('in_progress');

    await store.complete(current, { from: 'current' });
    await store.complete(lost, { from: 'lost' });
    await store.release(lost);
    await store.release(current); // a finished record is not released either
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: { from: 'current' } });
  });

  it('when a lease expires but nobody took over, then its owner can still complete', async () => {
    const key = aKey();
    const lease = leaseOf(await store.begin(key, fpA, 100));
    await sleep(200);
    await store.complete(lease, { late: true });
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: { late: true } });
  });

  it('when a lease expires and is taken over, then the new holder is told, with the first attempt’s start, across take-overs', async () => {
    const key = aKey();
    const before = Date.now();
    leaseOf(await store.begin(key, fpA, 150));
    await sleep(300);
    const second = await store.begin(key, fpA, 150);
    expect(second).toMatchObject({ state: 'acquired', earlier: { reason: 'taken_over', since: expect.any(Number) } });
    const since = (second as { earlier: { since: number } }).earlier.since;
    expect(Math.abs(since - before)).toBeLessThan(5_000); // the store's clock, near this one
    await sleep(300);
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toMatchObject({ state: 'acquired', earlier: { reason: 'taken_over', since } });
  });

  it('when a lease is abandoned (outcome uncertain), then the same inputs take over at once and are told; other inputs are refused', async () => {
    const key = aKey();
    const first = leaseOf(await store.begin(key, fpA, LONG_LEASE_MS));
    await store.abandon(first);
    expect(await store.begin(key, fpB, LONG_LEASE_MS)).toEqual({ state: 'mismatch' });
    const next = await store.begin(key, fpA, LONG_LEASE_MS);
    expect(next).toMatchObject({ state: 'acquired', earlier: { reason: 'taken_over' } });
    await store.abandon(first); // not the holder any more: nothing changes
    expect((await store.begin(key, fpA, LONG_LEASE_MS)).state).toBe('in_progress');
    expect(await store.complete(leaseOf(next), { ok: 'checked' })).toBe('stored');
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: { ok: 'checked' } });
  });

  it('when the record was lost while the write ran, then complete re-creates it and retries replay', async () => {
    const key = aKey();
    const lease = leaseOf(await store.begin(key, fpA, LONG_LEASE_MS));
    await backend.lose(key);
    expect(await store.complete(lease, { sent: 'm-1' })).toBe('stored');
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: { sent: 'm-1' } });
    expect(await store.begin(key, fpB, LONG_LEASE_MS)).toEqual({ state: 'mismatch' });
  });

  it('when another owner took the key over, then the old lease’s complete is superseded and writes nothing', async () => {
    const key = aKey();
    const lost = leaseOf(await store.begin(key, fpA, 150));
    await sleep(300);
    const current = leaseOf(await store.begin(key, fpA, LONG_LEASE_MS));
    expect(await store.complete(lost, { from: 'lost' })).toBe('superseded');
    expect(await store.complete(current, { from: 'current' })).toBe('stored');
    expect(await store.complete(lost, { from: 'lost' })).toBe('superseded');
    expect(await store.begin(key, fpA, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: { from: 'current' } });
  });

  it('when the ttl has passed, then the record is forgotten and the key runs again', async () => {
    const shortLived = backend.store(1);
    const key = aKey();
    await shortLived.complete(leaseOf(await shortLived.begin(key, fpA, LONG_LEASE_MS)), { ok: true });
    expect((await shortLived.begin(key, fpA, LONG_LEASE_MS)).state).toBe('replay');
    await sleep(1_300);
    expect((await shortLived.begin(key, fpB, LONG_LEASE_MS)).state).toBe('acquired');
  });

  it('when records are stored, then no key contains the raw request id', async () => {
    const key = aKey({ requestId: `raw-request-${randomUUID()}` });
    await store.complete(leaseOf(await store.begin(key, fpA, LONG_LEASE_MS)), { ok: true });
    const keys = await backend.keys();
    expect(keys).toContain(storageKey(key));
    expect(keys.some((k) => k.includes(key.requestId) || k.includes('raw-request'))).toBe(false);
  });

  describe('without a lease (writes Google deduplicates: peek, then recordMany)', () => {
    const unleased = (key: IdempotencyKey, fingerprint = fpA): Lease => ({ key: storageKey(key), owner: randomUUID(), fingerprint });

    it('when a key is new, then look finds nothing and writes nothing', async () => {
      const key = aKey();
      expect(await peek(store, key, fpA)).toEqual({ state: 'free' });
      expect(await backend.keys()).not.toContain(storageKey(key));
    });

    it('when outcomes are recorded in one batch, then each replays, other inputs are refused, and begin sees the same', async () => {
      const [k1, k2, k3] = [aKey(), aKey(), aKey()];
      const written = await store.recordMany([
        { lease: unleased(k1), outcome: { ok: true, value: { id: 'e1', attendees: [] } } },
        { lease: unleased(k2), outcome: { ok: false, error: { code: 'RESOURCE_NOT_FOUND' } } },
        { lease: unleased(k3, fpB), outcome: { ok: true, value: { s: 'a\u0000b' } } },
      ]);
      expect(written).toEqual(new Set([k1, k2, k3].map(storageKey)));
      expect(await peek(store, k1, fpA)).toEqual({ state: 'replay', outcome: { ok: true, value: { id: 'e1', attendees: [] } } });
      expect(await peek(store, k2, fpA)).toEqual({ state: 'replay', outcome: { ok: false, error: { code: 'RESOURCE_NOT_FOUND' } } });
      expect(await peek(store, k1, fpB)).toEqual({ state: 'mismatch' });
      expect(await store.begin(k3, fpB, LONG_LEASE_MS)).toEqual({ state: 'replay', outcome: expect.objectContaining({ ok: true }) });
      expect(await store.recordMany([])).toEqual(new Set());
    });

    it('when the key holds a live lease or a finished record, then recordMany leaves it as it was, and peek reports the lease', async () => {
      const running = aKey();
      const lease = leaseOf(await store.begin(running, fpA, LONG_LEASE_MS));
      const done = aKey();
      await store.complete(leaseOf(await store.begin(done, fpA, LONG_LEASE_MS)), { first: true });
      expect(await peek(store, running, fpA)).toEqual({ state: 'in_progress', retryAfterS: expect.any(Number) });
      const written = await store.recordMany([
        { lease: unleased(running), outcome: { second: true } },
        { lease: unleased(done), outcome: { second: true } },
      ]);
      expect(written.size).toBe(0);
      expect(await peek(store, done, fpA)).toEqual({ state: 'replay', outcome: { first: true } });
      expect(await store.complete(lease, { holder: true })).toBe('stored');
      expect(await peek(store, running, fpA)).toEqual({ state: 'replay', outcome: { holder: true } });
    });

    it('when a lease has passed, then peek finds the key free and recordMany takes it (same inputs only)', async () => {
      const key = aKey();
      await store.begin(key, fpA, 1);
      await sleep(20);
      expect(await peek(store, key, fpA)).toEqual({ state: 'free' });
      expect(await peek(store, key, fpB)).toEqual({ state: 'mismatch' });
      expect((await store.recordMany([{ lease: unleased(key, fpB), outcome: { other: true } }])).size).toBe(0);
      expect((await store.recordMany([{ lease: unleased(key), outcome: { late: true } }])).size).toBe(1);
      expect(await peek(store, key, fpA)).toEqual({ state: 'replay', outcome: { late: true } });
    });
  });
});

describe('idempotency store on redis (Redis specifics)', () => {
  const suite = redisUrl ? describe : describe.skip;

  suite('with a live server', () => {
    let client: Redis;
    const prefix = `hub-test-${randomBytes(6).toString('hex')}:`;

    beforeAll(async () => {
      client = await openRedis(redisUrl!, captureLogs().logger);
    });
    afterAll(async () => {
      const left = await client.keys(`${prefix}*`);
      if (left.length > 0) await client.del(...left);
      client.disconnect();
    });

    it('when a record is written, then it always carries an expiry: lease + ttl while running, ttl when done', async () => {
      const store = createRedisIdempotencyStore(client, { ttlS: 60, prefix });
      const key = aKey();
      const lease = leaseOf(await store.begin(key, fpA, 5_000));
      const running = await client.pttl(prefix + storageKey(key));
      expect(running).toBeGreaterThan(60_000);
      expect(running).toBeLessThanOrEqual(65_000);
      await store.complete(lease, { ok: true });
      const done = await client.pttl(prefix + storageKey(key));
      expect(done).toBeGreaterThan(55_000);
      expect(done).toBeLessThanOrEqual(60_000);
      expect(JSON.parse((await client.get(prefix + storageKey(key)))!)).toEqual({ v: 1, fp: fpA, state: 'done', outcome: { ok: true } });
    });

    it('when Redis has lost its records (no epoch key), then acquisitions are told store_reset until the epoch is old enough', async () => {
      const own = `${prefix}reset-${randomBytes(4).toString('hex')}:`;
      const store = createRedisIdempotencyStore(client, { ttlS: 600, prefix: own, resetSuspectMs: 60_000 });
      const first = await store.begin(aKey(), fpA, 5_000);
      expect(first).toMatchObject({ state: 'acquired', earlier: { reason: 'store_reset', since: expect.any(Number) } });
      const epoch = Number(await client.get(`${own}idem-epoch`));
      expect((first as { earlier: { since: number } }).earlier.since).toBe(epoch - 60_000); // attempts up to the window before it
      expect(await client.pttl(`${own}idem-epoch`)).toBe(-1); // kept without expiry
      await client.set(`${own}idem-epoch`, epoch - 120_000); // an epoch older than the suspicion window
      expect(await store.begin(aKey(), fpA, 5_000)).toMatchObject({ state: 'acquired', earlier: null });
      await client.del(`${own}idem-epoch`); // what a restart without persistence (or FLUSHALL) leaves
      expect(await store.begin(aKey(), fpA, 5_000)).toMatchObject({ state: 'acquired', earlier: { reason: 'store_reset' } });
      const left = await client.keys(`${own}*`);
      if (left.length > 0) await client.del(...left);
    });

    it('when no prefix is given, then records live under hub:idem:', async () => {
      const store = createRedisIdempotencyStore(client, { ttlS: 60 });
      const key = aKey();
      await store.release(leaseOf(await store.begin(key, fpA, 5_000)));
      const lease = leaseOf(await store.begin(key, fpA, 5_000));
      expect(await client.exists(`hub:${storageKey(key)}`)).toBe(1);
      await store.release(lease);
      expect(await client.exists(`hub:${storageKey(key)}`)).toBe(0);
    });
  });

  it('when Redis is unreachable, then begin rejects instead of guessing', async () => {
    const down = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    try {
      const store = createRedisIdempotencyStore(down, { ttlS: 60 });
      await expect(store.begin(aKey(), fpA, 1_000)).rejects.toThrow();
      const lease = { key: 'idem:x', owner: randomUUID(), fingerprint: fpA };
      await expect(store.complete(lease, { ok: true })).rejects.toThrow();
      await expect(store.release(lease)).rejects.toThrow();
      await expect(store.abandon(lease)).rejects.toThrow();
    } finally {
      down.disconnect();
    }
  });
});

describe.each(drivers())('idempotency store on %s (database specifics)', (driver) => {
  let t: TestDb;

  beforeAll(async () => {
    t = await openTestDb(driver);
  });
  afterAll(() => t.drop());

  it('when expired rows exist, then a store purges them on its first complete', async () => {
    const shortLived = createPostgresIdempotencyStore(t.db, { ttlS: 1 });
    const old = aKey();
    await shortLived.complete(leaseOf(await shortLived.begin(old, fpA, LONG_LEASE_MS)), { ok: true });
    await sleep(1_200);
    const fresh = createPostgresIdempotencyStore(t.db, { ttlS: 60 });
    await fresh.complete(leaseOf(await fresh.begin(aKey(), fpA, LONG_LEASE_MS)), { ok: true });
    const rows = await t.db.query('SELECT 1 FROM idempotency_records WHERE key = $1', [storageKey(old)]);
    expect(rows).toHaveLength(0);
  });

  it('when a call is running, then its row is a lease on the database clock and the outcome lands as jsonb', async () => {
    const store = createPostgresIdempotencyStore(t.db, { ttlS: 60 });
    const key = aKey();
    const lease = leaseOf(await store.begin(key, fpA, 10_000));
    const [running] = await t.db.query<{ state: string; lease_s: number; ttl_s: number; outcome: unknown }>(
      `SELECT state, outcome, extract(epoch FROM lease_until - now())::float8 AS lease_s,
              extract(epoch FROM expires_at - now())::float8 AS ttl_s
         FROM idempotency_records WHERE key = $1`,
      [storageKey(key)],
    );
    expect(running).toMatchObject({ state: 'running', outcome: null });
    expect(running!.lease_s).toBeGreaterThan(8);
    expect(running!.lease_s).toBeLessThanOrEqual(10);
    expect(running!.ttl_s).toBeGreaterThan(68);
    await store.complete(lease, { ok: true, items: [1, 2] });
    const [done] = await t.db.query<{ state: string; kind: string }>('SELECT state, jsonb_typeof(outcome) AS kind FROM idempotency_records WHERE key = $1', [
      storageKey(key),
    ]);
    expect(done).toEqual({ state: 'done', kind: 'object' });
  });

  it('when the store is the only writer (embedded), then peek queries only keys that may exist: those there before it opened and those it wrote', async () => {
    const before = aKey();
    const other = createPostgresIdempotencyStore(t.db, { ttlS: 60 });
    await other.complete(leaseOf(await other.begin(before, fpA, LONG_LEASE_MS)), { before: true });
    const lookups: unknown[] = [];
    const counting = new Proxy(t.db, {
      get: (target, name, receiver) =>
        name === 'query'
          ? (sql: string, params?: unknown[]) => {
              if (sql.includes('WHERE key = $1')) lookups.push(params?.[0]);
              return target.query(sql, params);
            }
          : Reflect.get(target, name, receiver),
    });
    const sole = createPostgresIdempotencyStore(counting, { ttlS: 60, soleWriter: { logger: captureLogs().logger } });
    expect(await peek(sole, aKey(), fpA)).toEqual({ state: 'free' }); // the first use starts reading the keys: looked up meanwhile
    await sleep(200);
    lookups.length = 0;
    expect(await peek(sole, aKey(), fpA)).toEqual({ state: 'free' });
    expect(lookups).toEqual([]);
    expect(await peek(sole, before, fpA)).toEqual({ state: 'replay', outcome: { before: true } });
    const mine = aKey();
    await sole.recordMany([{ lease: { key: storageKey(mine), owner: randomUUID(), fingerprint: fpA }, outcome: { mine: true } }]);
    expect(await peek(sole, mine, fpB)).toEqual({ state: 'mismatch' });
    expect(lookups).toEqual([storageKey(before), storageKey(mine)]);
  });
});

describe('idempotency store on an unreachable database', () => {
  it('when the database is unreachable, then begin rejects with an unavailable error', async () => {
    const db = unreachableDb();
    try {
      const err = await createPostgresIdempotencyStore(db, { ttlS: 60 })
        .begin(aKey(), fpA, 1_000)
        .catch((e: unknown) => e);
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await db.close();
    }
  });
});

describe('fingerprintOf and storageKey', () => {
  it('when inputs differ only in key order, then the fingerprint is the same', () => {
    const a = fingerprintOf({ to: 'x@example.com', body: { text: 'hi', html: '<p>hi</p>' }, cc: ['a', 'b'] }, 'user-1');
    const b = fingerprintOf({ cc: ['a', 'b'], body: { html: '<p>hi</p>', text: 'hi' }, to: 'x@example.com' }, 'user-1');
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when values, array order or the end user differ, then the fingerprint differs', () => {
    const base = fingerprintOf({ cc: ['a', 'b'] }, 'user-1');
    expect(fingerprintOf({ cc: ['b', 'a'] }, 'user-1')).not.toBe(base);
    expect(fingerprintOf({ cc: ['a', 'b'] }, 'user-2')).not.toBe(base);
    expect(fingerprintOf({ cc: ['a', 'b'] }, null)).not.toBe(base);
    expect(fingerprintOf({ cc: ['a', 'b'] }, '')).not.toBe(fingerprintOf({ cc: ['a', 'b'] }, null));
    expect(fingerprintOf({ cc: ['a', 'c'] }, 'user-1')).not.toBe(base);
  });

  it('when a storage key is derived, then it is a digest that never contains the raw request id', () => {
    const key = { customerId: 'c1', tool: 'gmail_send_message', requestId: "'; DROP TABLE x; -- {hub:*}" };
    const k = storageKey(key);
    expect(k).toMatch(/^idem:[0-9a-f]{64}$/);
    expect(k).not.toContain(key.requestId);
    expect(storageKey(key)).toBe(k);
  });

  it('when the customer, tool or request id differ, then the storage keys differ', () => {
    const base = { customerId: 'c', tool: 't', requestId: 'r' };
    const k = storageKey(base);
    expect(storageKey({ ...base, customerId: 'c2' })).not.toBe(k);
    expect(storageKey({ ...base, tool: 't2' })).not.toBe(k);
    expect(storageKey({ ...base, requestId: 'r2' })).not.toBe(k);
    expect(storageKey({ customerId: 'ct', tool: '', requestId: 'r' })).not.toBe(storageKey({ customerId: 'c', tool: 't', requestId: 'r' }));
  });
});
