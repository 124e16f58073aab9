import { setTimeout as sleep } from 'node:timers/promises';
import { createPendingOutcomes } from '../../src/protection/idempotency-pending';
import type { CompleteResult, IdempotencyStore, Lease } from '../../src/protection/idempotency-store';
import { captureLogs } from '../helpers/logs';

/** The outcomes a guard keeps while its store is down: retried until stored, bounded in number and in time. */

function flakyStore(startDown = true) {
  const stored: string[] = [];
  /** The size of each recordMany() call: how deferred outcomes were batched. */
  const batches: number[] = [];
  let down = startDown;
  const store: IdempotencyStore = {
    kind: 'redis',
    begin: () => Promise.reject(new Error('not used')),
    complete: async (lease: Lease): Promise<CompleteResult> => {
      if (down) throw new Error('connection is closed');
      stored.push(lease.key);
      return 'stored';
    },
    release: async () => {},
    abandon: async () => {},
    look: () => Promise.reject(new Error('not used')),
    recordMany: async (entries) => {
      if (down) throw new Error('connection is closed');
      await sleep(5); // a round trip: what arrives meanwhile waits for the next batch
      batches.push(entries.length);
      stored.push(...entries.map((e) => e.lease.key));
      return new Set(entries.map((e) => e.lease.key));
    },
  };
  return { store, stored, batches, up: () => void (down = false), down: () => void (down = true) };
}
const lease = (key: string): Lease => ({ key, owner: 'o', fingerprint: 'f' });

test('when the store comes back, then every kept outcome is stored once and forgotten here', async () => {
  const { store, stored, up } = flakyStore();
  const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: captureLogs().logger, firstRetryMs: 10, maxRetryMs: 40 });
  pending.add(lease('idem:a'), { ok: true });
  pending.add(lease('idem:b'), { ok: true });
  await sleep(100);
  expect(pending.get('idem:a')).toBeDefined(); // still down: kept, still answering retries
  expect(pending.size()).toBe(2); // what the hub_idempotency_unrecorded_outcomes gauge shows
  up();
  for (let i = 0; i < 50 && stored.length < 2; i++) await sleep(20);
  expect(stored.sort()).toEqual(['idem:a', 'idem:b']);
  expect(pending.get('idem:a')).toBeUndefined();
  expect(pending.size()).toBe(0);
});

test('when more outcomes wait than the bound, then the oldest is dropped (logged); when the ttl passes, then it is given up', async () => {
  const { store } = flakyStore();
  const logs = captureLogs();
  const pending = createPendingOutcomes(store, { ttlMs: 50, logger: logs.logger, maxEntries: 2, firstRetryMs: 10, maxRetryMs: 20 });
  pending.add(lease('idem:1'), { n: 1 });
  pending.add(lease('idem:2'), { n: 2 });
  pending.add(lease('idem:3'), { n: 3 });
  expect(pending.get('idem:1')).toBeUndefined();
  expect(pending.get('idem:3')).toEqual(expect.objectContaining({ outcome: { n: 3 } }));
  expect(logs.text()).toContain('dropped the oldest');
  await sleep(150);
  expect(pending.get('idem:3')).toBeUndefined();
  expect(logs.text()).toContain('gave up recording');
});

test('when the Hub stops while outcomes wait and the store comes back within the drain time, then drain stores them all and reports none lost', async () => {
  const { store, stored, up } = flakyStore();
  const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: captureLogs().logger, firstRetryMs: 10, maxRetryMs: 40 });
  pending.add(lease('idem:x'), { ok: true });
  pending.add(lease('idem:y'), { ok: true });
  setTimeout(up, 60);
  expect(await pending.drain(2_000)).toBe(0);
  expect(stored.sort()).toEqual(['idem:x', 'idem:y']);
});

test('when the store stays down through the drain time, then drain gives up on time and logs how many outcomes were lost', async () => {
  const { store } = flakyStore();
  const logs = captureLogs();
  const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: logs.logger, firstRetryMs: 10, maxRetryMs: 40 });
  pending.add(lease('idem:z'), { ok: true });
  const started = Date.now();
  expect(await pending.drain(200)).toBe(1);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(logs.text()).toContain('never took');
});

describe('deferred outcomes (writes Google deduplicates, recorded after their answer)', () => {
  test('when outcomes are deferred while the store answers, then they are stored at once, many per round trip, and answered from here until then', async () => {
    const { store, stored, batches } = flakyStore(false);
    const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: captureLogs().logger, firstRetryMs: 1_000 });
    pending.add(lease('idem:d1'), { n: 1 }, 'deferred');
    expect(pending.get('idem:d1')).toEqual(expect.objectContaining({ outcome: { n: 1 }, kind: 'deferred' }));
    for (let i = 2; i <= 40; i++) pending.add(lease(`idem:d${i}`), { n: i }, 'deferred');
    for (let i = 0; i < 100 && stored.length < 40; i++) await sleep(5); // far below firstRetryMs: no backoff on the way
    expect(stored).toHaveLength(40);
    expect(batches.length).toBeLessThanOrEqual(2);
    expect(pending.get('idem:d40')).toBeUndefined();
  });

  test('when deferred outcomes arrive one by one within the gathering time, then they are stored together in one round trip', async () => {
    const { store, stored, batches } = flakyStore(false);
    const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: captureLogs().logger, gatherMs: 200 });
    for (let i = 1; i <= 5; i++) {
      pending.add(lease(`idem:g${i}`), { n: i }, 'deferred');
      await sleep(10); // calls answered one after another, as a busy Hub answers them
    }
    expect(stored).toHaveLength(0); // still gathering: answered from here meanwhile
    expect(pending.get('idem:g3')).toBeDefined();
    for (let i = 0; i < 100 && stored.length < 5; i++) await sleep(10);
    expect(batches).toEqual([5]);
  });

  test('when the store is down, then deferred outcomes are kept, retried with backoff and stored once it is back; a warning says so once', async () => {
    const { store, stored, up } = flakyStore();
    const logs = captureLogs();
    const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: logs.logger, firstRetryMs: 10, maxRetryMs: 40 });
    pending.add(lease('idem:k1'), { ok: true }, 'deferred');
    await sleep(80);
    pending.add(lease('idem:k2'), { ok: true }, 'deferred');
    await sleep(60);
    expect(pending.get('idem:k1')).toBeDefined();
    expect(logs.text().match(/could not record write outcomes/g)).toHaveLength(1);
    up();
    for (let i = 0; i < 50 && stored.length < 2; i++) await sleep(20);
    expect(stored.sort()).toEqual(['idem:k1', 'idem:k2']);
  });

  test('when the Hub stops with deferred outcomes waiting, then drain stores them', async () => {
    const { store, stored } = flakyStore(false);
    const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: captureLogs().logger });
    pending.add(lease('idem:s1'), { ok: true }, 'deferred');
    pending.add(lease('idem:s2'), { ok: true }, 'outage');
    expect(await pending.drain(2_000)).toBe(0);
    expect(stored.sort()).toEqual(['idem:s1', 'idem:s2']);
  });
});
