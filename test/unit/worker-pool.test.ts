import { join } from 'node:path';
import { type WorkerPool, createWorkerPool, workerEntry } from '../../src/workers/pool';

/** The pool with a test worker (test/helpers/pool-worker.js) that spins for `spinMs`, then answers its label. */
interface Task {
  label: string;
  spinMs?: number;
  fail?: boolean;
}

const ENTRY = join(__dirname, '..', 'helpers', 'pool-worker.js');
const pools: WorkerPool<Task, string>[] = [];
const pool = (size = 1, maxQueue = 10, entry = ENTRY, maxQueuePerKey?: number) => {
  const p = createWorkerPool<Task, string>({ entry, workerData: null, size, maxQueue, ...(maxQueuePerKey ? { maxQueuePerKey } : {}) });
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const run = (p: WorkerPool<Task, string>, task: Task, options: { key?: string; timeoutMs?: number; signal?: AbortSignal } = {}) =>
  p.run(task, { key: options.key ?? 'a', timeoutMs: options.timeoutMs ?? 5_000, ...(options.signal ? { signal: options.signal } : {}) });

describe('worker pool', () => {
  it('when tasks run, then their answers come back and the workers are reused', async () => {
    const p = pool(2);
    const answers = await Promise.all(['one', 'two', 'three', 'four'].map((label) => run(p, { label })));
    expect(answers).toEqual(['one', 'two', 'three', 'four'].map((value) => ({ ok: true, value })));
    expect(p.stats()).toEqual({ workers: 2, busy: 0, queued: 0 });
  });

  it('when a task outruns its time, then its worker is terminated, the task times out, and the next task gets a fresh worker', async () => {
    const p = pool(1);
    const t0 = Date.now();
    expect(await run(p, { label: 'endless', spinMs: 60_000 }, { timeoutMs: 200 })).toEqual({ ok: false, reason: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await run(p, { label: 'next' })).toEqual({ ok: true, value: 'next' });
  });

  it('when the worker reports a failure, then the task fails as crashed and the worker keeps serving', async () => {
    const p = pool(1);
    expect(await run(p, { label: 'x', fail: true })).toEqual({ ok: false, reason: 'crashed' });
    expect(await run(p, { label: 'y' })).toEqual({ ok: true, value: 'y' });
  });

  it('when the queue is full, then a further task is refused at once as busy', async () => {
    const p = pool(1, 2);
    const running = run(p, { label: 'long', spinMs: 300 });
    // Give the worker time to start and take the first task, so the next two wait in the queue.
    while (p.stats().busy === 0) await new Promise((r) => setTimeout(r, 10));
    const queued = [run(p, { label: 'q1' }), run(p, { label: 'q2' })];
    expect(await run(p, { label: 'over' })).toEqual({ ok: false, reason: 'busy' });
    expect(await Promise.all([running, ...queued])).toEqual([
      { ok: true, value: 'long' },
      { ok: true, value: 'q1' },
      { ok: true, value: 'q2' },
    ]);
  });

  it("when one caller has taken its share of the queue, then its next task is refused as busy while another caller's still gets a place", async () => {
    const p = pool(1, 4, ENTRY, 2);
    const running = run(p, { label: 'long', spinMs: 300 }, { key: 'a' });
    while (p.stats().busy === 0) await new Promise((r) => setTimeout(r, 10));
    const queued = [run(p, { label: 'a1' }, { key: 'a' }), run(p, { label: 'a2' }, { key: 'a' })];
    expect(await run(p, { label: 'a3' }, { key: 'a' })).toEqual({ ok: false, reason: 'busy' });
    const other = run(p, { label: 'b1' }, { key: 'b' });
    expect(await Promise.all([running, ...queued, other])).toEqual(['long', 'a1', 'a2', 'b1'].map((value) => ({ ok: true, value })));
  });

  it("when one caller queues many tasks and another one, then the other's task runs next, not after all of them", async () => {
    const p = pool(1, 20);
    const order: string[] = [];
    const track = (label: string, key: string) => run(p, { label, spinMs: 20 }, { key }).then(() => order.push(label));
    const first = track('a0', 'a');
    while (p.stats().busy === 0) await new Promise((r) => setTimeout(r, 10));
    const rest = [1, 2, 3, 4].map((i) => track(`a${i}`, 'a'));
    const other = track('b0', 'b');
    await Promise.all([first, ...rest, other]);
    expect(order).toEqual(['a0', 'a1', 'b0', 'a2', 'a3', 'a4']);
  });

  it('when a caller gives up, then a queued task leaves the queue and a running one is stopped', async () => {
    const p = pool(1);
    const gaveUp = new AbortController();
    const running = run(p, { label: 'long', spinMs: 60_000 }, { signal: gaveUp.signal });
    while (p.stats().busy === 0) await new Promise((r) => setTimeout(r, 10));
    const queuedGiveUp = new AbortController();
    const queued = run(p, { label: 'queued' }, { signal: queuedGiveUp.signal });
    queuedGiveUp.abort();
    expect(await queued).toEqual({ ok: false, reason: 'aborted' });
    expect(p.stats().queued).toBe(0);
    gaveUp.abort();
    expect(await running).toEqual({ ok: false, reason: 'aborted' });
    expect(await run(p, { label: 'after' })).toEqual({ ok: true, value: 'after' });
    expect(await run(p, { label: 'x' }, { signal: AbortSignal.abort() })).toEqual({ ok: false, reason: 'aborted' });
  });

  it('when the worker cannot load, then waiting tasks fail as crashed instead of waiting forever', async () => {
    const p = pool(1, 10, join(__dirname, 'no-such-worker.js'));
    expect(await run(p, { label: 'x' })).toEqual({ ok: false, reason: 'crashed' });
  });

  it('when the pool is closed, then running and queued tasks fail as closed and new ones are refused', async () => {
    const p = pool(1);
    const running = run(p, { label: 'long', spinMs: 60_000 });
    while (p.stats().busy === 0) await new Promise((r) => setTimeout(r, 10));
    const queued = run(p, { label: 'queued' });
    await p.close();
    expect(await Promise.all([running, queued])).toEqual([
      { ok: false, reason: 'closed' },
      { ok: false, reason: 'closed' },
    ]);
    expect(await run(p, { label: 'late' })).toEqual({ ok: false, reason: 'closed' });
  });

  it('when the code runs from source or from dist/, then the worker entry is the sibling with the same extension', () => {
    expect(workerEntry('/app/dist/src/workers', '/app/dist/src/tools/email/html-text.js', 'html-to-text')).toBe('/app/dist/src/workers/html-to-text.js');
    expect(workerEntry('/repo/src/workers', '/repo/src/tools/email/html-text.ts', 'html-to-text')).toBe('/repo/src/workers/html-to-text.ts');
  });
});
