import { setTimeout as sleep } from 'node:timers/promises';
import { createPendingOutcomes } from '../../src/protection/idempotency-pending';
import type { CompleteResult, IdempotencyStore, Lease } from '../../src/protection/idempotency-store';
import { captureLogs } from '../helpers/logs';

/** The outcomes a guard keeps while its store is down: retried until stored, bounded in number and in time. */

function flakyStore() {
  const stored: string[] = [];
  let down = true;
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
  };
  return { store, stored, up: () => void (down = false) };
}
const lease = (key: string): Lease => ({ key, owner: 'o', fingerprint: 'f' });

test('when the store comes back, then every kept outcome is stored once and forgotten here', async () => {
  const { store, stored, up } = flakyStore();
  const pending = createPendingOutcomes(store, { ttlMs: 60_000, logger: captureLogs().logger, firstRetryMs: 10, maxRetryMs: 40 });
  pending.add(lease('idem:a'), { ok: true });
  pending.add(lease('idem:b'), { ok: true });
  await sleep(100);
  expect(pending.get('idem:a')).toBeDefined(); // still down: kept, still answering retries
  up();
  for (let i = 0; i < 50 && stored.length < 2; i++) await sleep(20);
  expect(stored.sort()).toEqual(['idem:a', 'idem:b']);
  expect(pending.get('idem:a')).toBeUndefined();
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
