import { extname, join } from 'node:path';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * A small pool of worker threads for CPU-bound work on untrusted input, built on node:worker_threads rather than
 * a library: what it must guarantee is exactly what the available pools make awkward — a task past its time
 * budget is killed at once (Worker.terminate() interrupts running JavaScript), the queue is bounded and shared
 * fairly between callers, and a task whose caller gave up leaves the queue. Expected failures are values.
 *
 *  - `size` workers at most, started on first use and kept; one task per worker at a time.
 *  - Queued tasks are grouped by `key` (a customer) and served round-robin, so one caller's hundred tasks do
 *    not stand in front of another caller's one. At most `maxQueue` wait, and at most `maxQueuePerKey` of one
 *    key, so one caller cannot take every place and turn everyone else's tasks away; beyond either a task fails
 *    at once with `busy`.
 *  - A task runs at most `timeoutMs`; past it, or when its `signal` aborts while it runs, its worker is
 *    terminated (and replaced on demand). Aborted while queued, it simply leaves the queue.
 *  - Workers are unref'd: an idle pool never keeps the process alive. `close()` terminates them.
 */

export type PoolFailure = 'timeout' | 'busy' | 'aborted' | 'crashed' | 'closed';
export type PoolOutcome<O> = { ok: true; value: O } | { ok: false; reason: PoolFailure };

export interface PoolOptions {
  /** The worker's module (see workerEntry); it posts `{ready: true}` once loaded, then answers `{id, ok, value|error}`. */
  entry: string;
  workerData: unknown;
  size: number;
  maxQueue: number;
  /** Places in the queue one key may hold (default: all of maxQueue). */
  maxQueuePerKey?: number;
  resourceLimits?: ResourceLimits;
}

export interface RunOptions {
  /** Whose task this is: queued tasks are served round-robin across keys. */
  key: string;
  /** Longest the task may run once a worker has it. */
  timeoutMs: number;
  /** The caller stopped waiting (its deadline passed, or its answer no longer needs this task). */
  signal?: AbortSignal;
}

export interface WorkerPool<I, O> {
  run(input: I, options: RunOptions): Promise<PoolOutcome<O>>;
  stats(): { workers: number; busy: number; queued: number };
  close(): Promise<void>;
}

/**
 * Where a worker module is, for code running from source under jest (ts-jest; Node runs the worker's .ts with
 * type stripping) and from dist/ (compiled .js) alike: the sibling of the calling module with its extension.
 */
export const workerEntry = (dirname: string, filename: string, name: string) => join(dirname, `${name}${extname(filename)}`);

interface Task<I, O> {
  id: number;
  input: I;
  key: string;
  options: RunOptions;
  state: 'queued' | 'running' | 'done';
  settle(outcome: PoolOutcome<O>): void;
}

interface Slot<I, O> {
  worker: Worker;
  ready: boolean;
  task?: Task<I, O>;
  timer?: NodeJS.Timeout;
}

type Reply<O> = { ready: true } | { id: number; ok: true; value: O } | { id: number; ok: false; error: string };

export function createWorkerPool<I, O>(options: PoolOptions): WorkerPool<I, O> {
  const slots = new Set<Slot<I, O>>();
  const queues = new Map<string, Task<I, O>[]>();
  /** Keys with queued tasks, in the order they are served next. */
  const turns: string[] = [];
  /** Tasks waiting for a worker. */
  let queued = 0;
  let nextId = 1;
  let closed = false;
  const perKey = options.maxQueuePerKey ?? options.maxQueue;

  // Under jest the entry is TypeScript that Node strips; it has ESM syntax in a package without "type".
  const execArgv = options.entry.endsWith('.ts') ? [...process.execArgv, '--disable-warning=MODULE_TYPELESS_PACKAGE_JSON'] : undefined;

  const spawn = () => {
    const worker = new Worker(options.entry, {
      workerData: options.workerData,
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      ...(execArgv ? { execArgv } : {}),
    });
    worker.unref();
    const slot: Slot<I, O> = { worker, ready: false };
    slots.add(slot);
    worker.on('message', (reply: Reply<O>) => {
      if ('ready' in reply) slot.ready = true;
      else if (slot.task?.id === reply.id) finish(slot, reply.ok ? { ok: true, value: reply.value } : { ok: false, reason: 'crashed' });
      dispatch();
    });
    // A worker that dies (out of memory, say) fails its task and is replaced when needed. One that dies before
    // it was ready could not load: the waiting tasks fail now rather than wait for a worker that never comes.
    const gone = () => {
      if (!slots.delete(slot)) return;
      if (slot.task) finish(slot, { ok: false, reason: 'crashed' });
      if (!slot.ready) failQueued('crashed');
      dispatch();
    };
    worker.on('error', gone);
    worker.on('exit', gone);
  };

  /** Ends the slot's current task; the slot is free again (or gone, if it was terminated). */
  const finish = (slot: Slot<I, O>, outcome: PoolOutcome<O>) => {
    const task = slot.task;
    clearTimeout(slot.timer);
    slot.task = undefined;
    slot.timer = undefined;
    task?.settle(outcome);
  };

  /** Stops a running task for good: the only way to interrupt JavaScript in a worker is to end the worker. */
  const kill = (slot: Slot<I, O>, reason: PoolFailure) => {
    slots.delete(slot);
    finish(slot, { ok: false, reason });
    void slot.worker.terminate();
    dispatch();
  };

  const failQueued = (reason: PoolFailure) => {
    for (const queue of queues.values()) for (const task of queue) task.settle({ ok: false, reason });
    queues.clear();
    turns.length = 0;
    queued = 0;
  };

  /** The next task, taking keys in turn. */
  const takeNext = (): Task<I, O> | undefined => {
    const key = turns.shift();
    if (key === undefined) return undefined;
    const queue = queues.get(key)!;
    const task = queue.shift()!;
    if (queue.length > 0) turns.push(key);
    else queues.delete(key);
    return task;
  };

  /** A queued task whose caller gave up leaves the queue at once (bounded: at most maxQueue are queued). */
  const dequeue = (task: Task<I, O>) => {
    const queue = queues.get(task.key);
    const at = queue?.indexOf(task) ?? -1;
    if (!queue || at === -1) return;
    queue.splice(at, 1);
    queued--;
    if (queue.length === 0) {
      queues.delete(task.key);
      turns.splice(turns.indexOf(task.key), 1);
    }
  };

  const start = (slot: Slot<I, O>, task: Task<I, O>) => {
    queued--;
    task.state = 'running';
    slot.task = task;
    slot.timer = setTimeout(() => kill(slot, 'timeout'), task.options.timeoutMs);
    slot.timer.unref();
    slot.worker.postMessage({ id: task.id, input: task.input });
  };

  const dispatch = () => {
    if (closed) return;
    for (const slot of slots) {
      if (queued === 0) return;
      if (!slot.ready || slot.task) continue;
      const task = takeNext();
      if (!task) return;
      start(slot, task);
    }
    // Every worker is busy or starting: start another while the pool may grow and more tasks wait than start.
    let starting = 0;
    for (const slot of slots) if (!slot.ready) starting++;
    if (queued > starting && slots.size < options.size) spawn();
  };

  const runningSlotOf = (task: Task<I, O>) => {
    for (const slot of slots) if (slot.task === task) return slot;
    return undefined;
  };

  return {
    run(input, runOptions) {
      if (closed) return Promise.resolve({ ok: false, reason: 'closed' });
      if (runOptions.signal?.aborted) return Promise.resolve({ ok: false, reason: 'aborted' });
      if (queued >= options.maxQueue || (queues.get(runOptions.key)?.length ?? 0) >= perKey) return Promise.resolve({ ok: false, reason: 'busy' });
      return new Promise<PoolOutcome<O>>((resolve) => {
        const onAbort = () => {
          if (task.state === 'running') {
            const slot = runningSlotOf(task);
            if (slot) kill(slot, 'aborted');
          } else if (task.state === 'queued') {
            dequeue(task);
            task.settle({ ok: false, reason: 'aborted' });
          }
        };
        const task: Task<I, O> = {
          id: nextId++,
          input,
          key: runOptions.key,
          options: runOptions,
          state: 'queued',
          settle(outcome) {
            if (task.state === 'done') return;
            task.state = 'done';
            runOptions.signal?.removeEventListener('abort', onAbort);
            resolve(outcome);
          },
        };
        runOptions.signal?.addEventListener('abort', onAbort, { once: true });
        const queue = queues.get(task.key);
        if (queue) queue.push(task);
        else {
          queues.set(task.key, [task]);
          turns.push(task.key);
        }
        queued++;
        dispatch();
      });
    },
    stats() {
      let busy = 0;
      for (const slot of slots) if (slot.task) busy++;
      return { workers: slots.size, busy, queued };
    },
    async close() {
      closed = true;
      failQueued('closed');
      const all = [...slots];
      slots.clear();
      for (const slot of all) finish(slot, { ok: false, reason: 'closed' });
      await Promise.all(all.map((slot) => slot.worker.terminate()));
    },
  };
}
