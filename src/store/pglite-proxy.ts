import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, type MessagePort, type Transferable, Worker } from 'node:worker_threads';
import { type Db, type Queryable, withTimeout } from './db';
import type { FromPgliteThread, PgliteThreadData, PlainError, ToPgliteThread } from './pglite-thread';

/**
 * The embedded database on a thread of its own (pglite-thread.ts): the Db interface here, every statement sent
 * across. A PGlite statement costs ~0.3–1.2 ms of CPU (a commit's WAL writes through the WASM file system), which
 * in process is time the event loop serves nobody; on the thread it overlaps with the requests, and a call waits
 * only for its own statements. The cost here is a message each way (a few microseconds).
 *
 * Another thread (the audit receipt thread) gets a port of its own to the same PGlite (`Db.channel`), and a Db
 * over it (`pgliteOverPort`): its statements go straight to PGlite's thread, not through the event loop.
 */

/** The compiled thread entry; undefined when running from TypeScript sources without a build (the caller then runs PGlite in process). */
export function pgliteThreadEntry(): string | undefined {
  const compiled = __filename.endsWith('.js') ? join(__dirname, 'pglite-thread.js') : join(__dirname, '..', '..', 'dist', 'src', 'store', 'pglite-thread.js');
  return existsSync(compiled) ? compiled : undefined;
}

const CLOSE_TIMEOUT_MS = 10_000;

/** Rebuilds the thread's error: same message, name and fields (`code` keeps isDatabaseUnavailable and SQLSTATE checks working). */
function errorOf(plain: PlainError): Error {
  const err = new Error(plain.message);
  Object.assign(err, plain);
  return err;
}

/**
 * Answers arrive as objects of Node's main realm. Where this code runs in another realm (Jest's test
 * environment), `instanceof Date` / `Uint8Array` would be false for them: there, Dates and bytes are re-made here.
 * In a Hub the realms are one, and the check is a single `instanceof`.
 */
function thisRealm(rows: unknown): unknown[] {
  if (rows instanceof Array) return rows;
  const copied: unknown[] = [];
  for (const row of rows as unknown[]) {
    const r = { ...(row as Record<string, unknown>) };
    for (const key in r) {
      const v = r[key];
      const tag = Object.prototype.toString.call(v);
      if (tag === '[object Date]') r[key] = new Date((v as Date).getTime());
      else if (tag === '[object Uint8Array]') r[key] = new Uint8Array(v as Uint8Array);
    }
    copied.push(r);
  }
  return copied;
}

type Answer = Extract<FromPgliteThread, { ok: true }>;
type Reply = Extract<FromPgliteThread, { ok: boolean }>;
type Request = ToPgliteThread extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never;

/** What both ends of a conversation with PGlite's thread offer: a Worker (the Hub's) or a MessagePort (another thread's). */
interface Endpoint {
  postMessage(message: unknown, transfer?: readonly Transferable[]): void;
  ref(): void;
  unref(): void;
}

/** Requests and their answers over one endpoint; `lose` fails everything waiting, and everything after. */
function conversation(endpoint: Endpoint) {
  const waiting = new Map<number, { resolve(a: Answer): void; reject(e: Error): void }>();
  let nextId = 1;
  let gone: Error | undefined;

  const receive = (m: Reply) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (waiting.size === 0) endpoint.unref(); // idle: the thread never keeps a finished process alive
    if (m.ok) w.resolve(m);
    else w.reject(errorOf(m.error));
  };
  const lose = (err: Error) => {
    gone ??= err;
    for (const w of waiting.values()) w.reject(gone);
    waiting.clear();
  };
  const request = (message: Request, transfer: readonly Transferable[] = []): Promise<Answer> =>
    new Promise((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      try {
        endpoint.postMessage({ ...message, id }, transfer);
      } catch (err) {
        return reject(err instanceof Error ? err : new Error(String(err))); // a parameter that cannot be copied
      }
      if (waiting.size === 0) endpoint.ref(); // an answer is awaited: keep the process alive for it
      waiting.set(id, { resolve, reject });
    });

  const queryable = (tx: number | undefined): Queryable => ({
    query: async <R extends object>(sql: string, params?: readonly unknown[]) =>
      thisRealm((await request({ type: 'query', sql, params: params as unknown[] | undefined, tx })).rows ?? []) as R[],
    exec: async (sql) => {
      await request({ type: 'exec', sql, tx });
    },
  });
  const outside = queryable(undefined);

  /** The Db over this conversation; `close` ends the other side's part. */
  const db = (close: () => Promise<void>, channel?: () => MessagePort): Db => ({
    kind: 'pglite',
    query: outside.query,
    exec: outside.exec,
    async transaction(fn) {
      const { tx } = await request({ type: 'begin' });
      let result;
      try {
        result = await fn(queryable(tx));
      } catch (err) {
        await request({ type: 'end', tx: tx!, commit: false }).catch(() => {}); // the caller's error is the one to see
        throw err;
      }
      await request({ type: 'end', tx: tx!, commit: true });
      return result;
    },
    async ping(timeoutMs) {
      await withTimeout(outside.query('SELECT 1'), timeoutMs, 'database ping timed out');
    },
    close,
    ...(channel ? { channel } : {}),
  });

  return { receive, lose, request, db, isGone: () => gone !== undefined };
}

/** Starts PGlite's thread on `dir` (null: in memory) and answers with the Db over it; `onClosed` runs once it is closed. */
export async function openPgliteThread(dir: string | null, entry: string, onClosed: () => void, from?: string): Promise<Db> {
  // Named: the OS shows the thread as `hub-pglite` (top -H, /proc/<pid>/task/*/comm; the benches split CPU by it).
  const worker = new Worker(entry, { name: 'hub-pglite', workerData: { dir, ...(from === undefined ? {} : { from }) } satisfies PgliteThreadData });
  const talk = conversation(worker);
  let closing = false;
  let reportLoss: (err: Error) => void = () => {};
  const lost = new Promise<Error>((resolve) => (reportLoss = resolve));
  // The same message as a closed PGlite in process, so isDatabaseUnavailable reads it as the database gone.
  const started = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: FromPgliteThread) => {
      if (!('type' in m)) return talk.receive(m);
      if (m.type === 'ready') resolve();
      else reject(errorOf(m.error));
    });
    const end = (why: Error) => {
      const err = new Error(`PGlite is closed: ${why.message}`);
      talk.lose(err);
      reject(err); // before 'ready': the open fails, and nobody holds this Db to see `lost`
      if (!closing) reportLoss(err); // the first reason wins: 'error' (the thread's own) comes before 'exit'
    };
    worker.on('error', (err) => end(err));
    worker.on('exit', (code) => end(new Error(`its thread exited (code ${code})`)));
  });
  try {
    await started;
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  worker.unref();

  const db = talk.db(
    async () => {
      if (closing) return;
      closing = true;
      if (!talk.isGone()) await withTimeout(talk.request({ type: 'close' }), CLOSE_TIMEOUT_MS, 'closing the embedded database timed out').catch(() => {});
      talk.lose(new Error('PGlite is closed'));
      await worker.terminate();
      onClosed();
    },
    () => {
      const { port1, port2 } = new MessageChannel();
      talk.request({ type: 'connect', port: port2 }, [port2]).catch(() => {}); // a closed database: the port's requests fail
      return port1;
    },
  );
  return { ...db, lost };
}

/** A Db over a port from `Db.channel()` — in another thread, to the same PGlite. Closing it closes the port only. */
export function pgliteOverPort(port: MessagePort): Db {
  const talk = conversation(port);
  port.on('message', (m: Reply) => talk.receive(m));
  port.on('close', () => talk.lose(new Error('PGlite is closed: its thread is gone')));
  port.unref();
  return talk.db(async () => {
    talk.lose(new Error('PGlite is closed'));
    port.close();
  });
}
