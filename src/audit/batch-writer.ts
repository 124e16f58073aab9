import type { Db, Queryable } from '../store/db';
import { isDatabaseUnavailable } from '../store/db';
import type { Logger } from '../logger';

/**
 * Rows written to the database in batches, off the request path: `push` only appends to an in-memory queue
 * (bounded: a full queue drops the new row), a timer (or a full batch) flushes it with one multi-row INSERT.
 * When the database is away, the queue is kept and the flush retried with exponential backoff; rows that have
 * waited longer than `retryForMs` are then dropped. Every drop is counted (`onDrop(n)`, for the metric) and
 * reported as one warning per `WARN_EVERY_MS` at most — never one line per row. A write that fails for any
 * other reason (a bug: the statement is wrong) drops its batch with an error line, so one bad row cannot wedge
 * the queue. Timers are unref'd: the writer never keeps a process alive; `close()` flushes what it can.
 */

export interface BatchWriterOptions<Row> {
  db: Db;
  logger: Logger;
  /** For log lines ('audit receipts'). */
  what: string;
  insert(db: Queryable, rows: readonly Row[]): Promise<void>;
  maxQueued: number;
  batchSize: number;
  flushIntervalMs: number;
  retryForMs: number;
  onDrop?: (n: number) => void;
  /** After each batch the database took. */
  onWritten?: (n: number) => void;
  now?: () => number;
}

export interface BatchWriter<Row> {
  push(row: Row): void;
  /** Writes everything queued now (tests, shutdown); resolves when the queue is empty or `timeoutMs` passed. */
  drain(timeoutMs?: number): Promise<void>;
  stats(): { queued: number; written: number; dropped: number };
  close(timeoutMs?: number): Promise<void>;
}

const WARN_EVERY_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;

export function createBatchWriter<Row>(options: BatchWriterOptions<Row>): BatchWriter<Row> {
  const now = options.now ?? Date.now;
  const queue: { row: Row; at: number }[] = [];
  let written = 0;
  let dropped = 0;
  let unreported = 0;
  let lastWarnAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let retryAt = 0;
  let flushing: Promise<void> | null = null;
  let closed = false;

  const drop = (n: number, why: string) => {
    if (n <= 0) return;
    dropped += n;
    unreported += n;
    options.onDrop?.(n);
    if (now() - lastWarnAt >= WARN_EVERY_MS) {
      options.logger.warn({ dropped: unreported, total_dropped: dropped, queued: queue.length, reason: why }, `${options.what}: rows dropped`);
      unreported = 0;
      lastWarnAt = now();
    }
  };

  async function flushOnce(): Promise<void> {
    while (queue.length > 0) {
      if (now() < retryAt) return;
      const batch = queue.slice(0, options.batchSize);
      try {
        await options.insert(
          options.db,
          batch.map((q) => q.row),
        );
        queue.splice(0, batch.length);
        written += batch.length;
        options.onWritten?.(batch.length);
        if (failures > 0) options.logger.info({ queued: queue.length }, `${options.what}: database back, writing again`);
        failures = 0;
        retryAt = 0;
        // Let requests in between batches: an embedded database's insert runs on this thread.
        if (queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
      } catch (err) {
        if (!isDatabaseUnavailable(err)) {
          queue.splice(0, batch.length);
          options.logger.error({ err }, `${options.what}: batch refused by the database; dropped`);
          drop(batch.length, 'refused');
          continue;
        }
        failures++;
        const backoff = Math.min(MAX_BACKOFF_MS, 100 * 2 ** Math.min(failures, 10));
        retryAt = now() + backoff;
        if (failures === 1) options.logger.warn({ err, queued: queue.length }, `${options.what}: database unavailable; keeping rows and retrying`);
        const cutoff = now() - options.retryForMs;
        let stale = 0;
        while (stale < queue.length && queue[stale]!.at < cutoff) stale++;
        queue.splice(0, stale);
        drop(stale, 'database unavailable');
        return;
      }
    }
  }

  const flush = (): Promise<void> => {
    flushing ??= flushOnce().finally(() => {
      flushing = null;
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  timer.unref();

  return {
    push(row) {
      if (closed || queue.length >= options.maxQueued) {
        drop(1, closed ? 'writer closed' : 'queue full');
        return;
      }
      queue.push({ row, at: now() });
      if (queue.length >= options.batchSize && flushing === null && now() >= retryAt) setImmediate(() => void flush());
    },
    async drain(timeoutMs = 10_000) {
      const until = now() + timeoutMs;
      while (queue.length > 0 && now() < until) {
        await flush();
        if (queue.length > 0) await new Promise((r) => setTimeout(r, Math.max(10, Math.min(200, retryAt - now()))));
      }
    },
    stats: () => ({ queued: queue.length, written, dropped }),
    async close(timeoutMs = 5_000) {
      clearInterval(timer);
      retryAt = 0;
      await this.drain(timeoutMs);
      closed = true;
      if (queue.length > 0) {
        lastWarnAt = Number.NEGATIVE_INFINITY; // always say so at shutdown
        const n = queue.length;
        queue.length = 0;
        drop(n, 'shutdown before the database took them');
      }
    },
  };
}

/** `INSERT INTO table (cols) VALUES ($1,$2…),(…)` for rows given as arrays in column order. */
export async function insertRows(
  db: Queryable,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  onConflict = '',
): Promise<void> {
  if (rows.length === 0) return;
  const params: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((v) => `$${params.push(v)}`).join(',')})`);
  await db.query(`INSERT INTO ${table} (${columns.join(',')}) VALUES ${tuples.join(',')} ${onConflict}`, params);
}
