import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Transaction } from '@electric-sql/pglite';
import { type Db, type Queryable, withTimeout } from './db';
import { openPgliteThread, pgliteThreadEntry } from './pglite-proxy';
import { createPglite } from './pglite-create';

/** `HUB_DATA_DIR=memory://` keeps the embedded database in memory (throw-away demos, tests). */
export const IN_MEMORY = 'memory://';

const txQueryable = (tx: Transaction): Queryable => ({
  query: async <R extends object>(sql: string, params?: readonly unknown[]) => (await tx.query<R>(sql, params as unknown[] | undefined)).rows,
  exec: async (sql) => {
    await tx.exec(sql);
  },
});

/**
 * PGlite is one Postgres "process" living inside ours: two Hubs opening the same directory would corrupt it.
 * A lock file holding our pid and a per-process nonce refuses a second opener — another live process, or this
 * same process twice — and is taken over when stale (its process is gone, or a container restart reused our pid).
 */
const PROCESS_NONCE = randomUUID();

function lockDataDir(dir: string): () => void {
  const lockPath = join(dir, 'hub.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, `${process.pid}:${PROCESS_NONCE}`);
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const [pidText, nonce] = readFileSync(lockPath, 'utf8').trim().split(':');
      const owner = Number(pidText);
      const held = owner === process.pid ? nonce === PROCESS_NONCE : Number.isInteger(owner) && owner > 0 && isAlive(owner);
      if (held) {
        throw new Error(
          `the embedded database in ${dir} is in use by process ${owner}; stop it, or set HUB_DATA_DIR to another directory or DATABASE_URL to a PostgreSQL server`,
          { cause: err },
        );
      }
      rmSync(lockPath, { force: true }); // stale
    }
  }
  throw new Error(`could not lock ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Opens the embedded database: on a thread of its own (pglite-proxy.ts) when the compiled thread entry exists and
 * `thread` is not false (HUB_PGLITE_THREAD), else in this thread. The data directory is locked here either way.
 * `from`: a `dumpDataDir` tarball to start from instead of an empty cluster (tests open copies of a migrated one).
 */
export async function openPglite(dataDir: string, options: { thread?: boolean; from?: string } = {}): Promise<Db> {
  const entry = options.thread === false ? undefined : pgliteThreadEntry();
  const dir = dataDir === IN_MEMORY ? null : join(dataDir, 'pglite');
  let unlock = () => {};
  if (dir !== null) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    unlock = lockDataDir(dataDir);
  }
  try {
    return entry ? await openPgliteThread(dir, entry, unlock, options.from) : await openInProcess(dir, unlock, options.from);
  } catch (err) {
    unlock();
    throw err;
  }
}

async function openInProcess(dir: string | null, unlock: () => void, from?: string): Promise<Db> {
  const pg = await createPglite(dir, from);

  return {
    kind: 'pglite',
    query: async <R extends object>(sql: string, params?: readonly unknown[]) => (await pg.query<R>(sql, params as unknown[] | undefined)).rows,
    exec: async (sql) => {
      await pg.exec(sql);
    },
    transaction: (fn) => pg.transaction((tx) => fn(txQueryable(tx))),
    async ping(timeoutMs) {
      await withTimeout(pg.query('SELECT 1'), timeoutMs, 'database ping timed out');
    },
    async close() {
      if (!pg.closed) await pg.close();
      unlock();
    },
  };
}
