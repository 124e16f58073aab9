import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { createPglite } from './pglite-create';

/**
 * The embedded database's thread (pglite-proxy.ts starts it): PGlite runs its WASM Postgres here, so a statement's
 * CPU (~0.3–1.2 ms each, a commit's WAL writes included) is never spent on the Hub's event loop. One PGlite, one
 * session, as in process: PGlite's own lock orders statements and transactions exactly as before.
 *
 * Messages in (each with an `id` the answer repeats): `query`/`exec` (optionally inside a transaction `tx`),
 * `begin` (answers with a transaction id), `end` (commit or roll back that transaction), `close`.
 * Answers: `{ id, ok: true, rows? , tx? }` or `{ id, ok: false, error }` — the error as plain fields (message,
 * name, SQLSTATE `code`, `constraint`, …), since an Error's own properties do not survive the copy.
 */

export interface PgliteThreadData {
  /** The data directory for PGlite, or null for an in-memory database. */
  dir: string | null;
  /** A tarball from PGlite's `dumpDataDir` to start the in-memory database from (a test's migrated copy). */
  from?: string;
}

export type ToPgliteThread =
  | { id: number; type: 'query'; sql: string; params: unknown[] | undefined; tx: number | undefined }
  | { id: number; type: 'exec'; sql: string; tx: number | undefined }
  | { id: number; type: 'begin' }
  | { id: number; type: 'end'; tx: number; commit: boolean }
  | { id: number; type: 'close' }
  /** Another thread's port (the audit receipt thread): served like the Hub's own, on the same database. */
  | { id: number; type: 'connect'; port: MessagePort };

export type PlainError = Record<string, string | number | boolean | null> & { message: string; name: string };

export type FromPgliteThread =
  | { id: 0; type: 'ready' }
  | { id: 0; type: 'failed'; error: PlainError }
  | { id: number; ok: true; rows?: unknown[]; tx?: number }
  | { id: number; ok: false; error: PlainError };

/** An error as fields a structured clone keeps: its message and name, and its own primitive properties. */
export function plainError(err: unknown): PlainError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const plain: PlainError = { name: err.name, message: err.message };
  for (const [key, value] of Object.entries(err)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) plain[key] = value as string | number | boolean | null;
  }
  return plain;
}

/**
 * A bytea value may be a view into a larger buffer PGlite read the result into; copying the view alone keeps the
 * message its own size (a structured clone copies a view's whole buffer).
 */
function ownBytes(rows: unknown[]): unknown[] {
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) continue;
    const r = row as Record<string, unknown>;
    for (const key in r) {
      const v = r[key];
      if (v instanceof Uint8Array && v.byteLength !== v.buffer.byteLength) r[key] = v.slice();
    }
  }
  return rows;
}

/** Rolls a transaction back without it being an error of the caller's: fn threw on the other side. */
class RollBack extends Error {}

async function run(port: NonNullable<typeof parentPort>, data: PgliteThreadData): Promise<void> {
  let pg: PGlite;
  try {
    pg = await createPglite(data.dir, data.from);
  } catch (err) {
    port.postMessage({ id: 0, type: 'failed', error: plainError(err) } satisfies FromPgliteThread);
    return;
  }
  /** Open transactions: PGlite runs each callback until the other side says commit or roll back. */
  const open = new Map<number, { tx: Transaction; commit(): void; rollBack(): void }>();
  const finished = new Map<number, Promise<void>>();
  let nextTx = 1;
  const on = (tx: number | undefined) => {
    if (tx === undefined) return pg;
    const t = open.get(tx);
    if (!t) throw new Error('the transaction has already ended');
    return t.tx;
  };

  const serve = (port: MessagePort) => {
    const answer = (message: FromPgliteThread) => port.postMessage(message);
    const fail = (id: number, err: unknown) => answer({ id, ok: false, error: plainError(err) });
    port.on('message', (m: ToPgliteThread) => {
      switch (m.type) {
        case 'query':
          void Promise.resolve()
            .then(() => on(m.tx).query(m.sql, m.params))
            .then(
              (r) => answer({ id: m.id, ok: true, rows: ownBytes(r.rows) }),
              (err: unknown) => fail(m.id, err),
            );
          return;
        case 'exec':
          void Promise.resolve()
            .then(() => on(m.tx).exec(m.sql))
            .then(
              () => answer({ id: m.id, ok: true }),
              (err: unknown) => fail(m.id, err),
            );
          return;
        case 'begin': {
          const txId = nextTx++;
          let began = false;
          const done = pg.transaction(async (tx) => {
            began = true;
            await new Promise<void>((resolve, reject) => {
              open.set(txId, { tx, commit: resolve, rollBack: () => reject(new RollBack()) });
              answer({ id: m.id, ok: true, tx: txId });
            });
          });
          finished.set(txId, done);
          // BEGIN itself failed (the callback never ran): that is the answer to `begin`.
          done.catch((err: unknown) => {
            if (!began) {
              finished.delete(txId);
              fail(m.id, err);
            }
          });
          return;
        }
        case 'end': {
          const t = open.get(m.tx);
          const done = finished.get(m.tx);
          if (!t || !done) return fail(m.id, new Error('the transaction has already ended'));
          open.delete(m.tx);
          finished.delete(m.tx);
          if (m.commit) t.commit();
          else t.rollBack();
          // PGlite commits (or rolls back) once the callback settles; the answer waits for that.
          done.then(
            () => answer({ id: m.id, ok: true }),
            (err: unknown) => (err instanceof RollBack ? answer({ id: m.id, ok: true }) : fail(m.id, err)),
          );
          return;
        }
        case 'connect':
          serve(m.port);
          answer({ id: m.id, ok: true });
          return;
        case 'close':
          void pg.close().then(
            () => answer({ id: m.id, ok: true }),
            (err: unknown) => fail(m.id, err),
          );
          return;
        default: {
          const unknown: never = m;
          throw new Error(`unknown message ${JSON.stringify(unknown)}`);
        }
      }
    });
  };
  serve(port);
  port.postMessage({ id: 0, type: 'ready' } satisfies FromPgliteThread);
}

if (parentPort) void run(parentPort, workerData as PgliteThreadData);
