import { createSecretKey } from 'node:crypto';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../logger';
import { pgliteOverPort } from '../store/pglite-proxy';
import { openPostgres } from '../store/postgres';
import { createBatchWriter } from './batch-writer';
import { type ReceiptRow, type WaitingFacts, insertReceipts, rowOfFacts, unflat } from './receipts';
import { type PayloadMode, createRedactor } from './redact';

/**
 * The audit receipt writer's thread (receipt-writer.ts starts it): it turns receipt facts into rows — the call_id's
 * HMAC, the payloads' compact shapes (shape.ts) — and writes them in batches, through a pool of its own on PostgreSQL or
 * straight to embedded PGlite's thread, so none of that costs the request thread. Messages in: `facts` (a batch),
 * `drain`, `close`. Out: `stats` after every batch taken or written, `drop`, `log` (the main thread logs: one
 * writer of stdout), `drained`, `closed`.
 */

export interface ReceiptThreadData {
  /** Where the rows go: a PostgreSQL server (its own pool of `poolMax`), or embedded PGlite's thread through a port. */
  database: { url: string; poolMax: number; queryTimeoutMs?: number | undefined } | { pglite: MessagePort };
  mode: PayloadMode;
  /** The audit key (hub-secrets' `audit-key`): the call_id and the redaction's hashes are keyed with it. */
  key: Uint8Array;
  batchSize: number;
  maxQueued: number;
  flushIntervalMs: number;
  retryForMs: number;
}

export type ToThread = { type: 'facts'; facts: WaitingFacts[] } | { type: 'drain'; id: number; timeoutMs: number } | { type: 'close'; timeoutMs: number };

export type FromThread =
  | { type: 'stats'; received: number; queued: number; written: number; dropped: number }
  | { type: 'drop'; n: number }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; fields: Record<string, unknown>; msg: string }
  | { type: 'drained'; id: number }
  | { type: 'closed' };

/** At most this often a `stats` message while receipts flow (see reportSoon). */
const REPORT_MS = 100;

function run(port: NonNullable<typeof parentPort>, data: ReceiptThreadData): void {
  const send = (message: FromThread) => port.postMessage(message);
  // Errors cross the thread boundary as what the logger's serializer keeps of them.
  const plain = (fields: Record<string, unknown>) => {
    const err = fields.err as { name?: unknown; message?: unknown; code?: unknown } | undefined;
    return err === undefined ? fields : { ...fields, err: { type: String(err.name ?? 'Error'), message: String(err.message), code: err.code } };
  };
  const log =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (fields: Record<string, unknown>, msg: string): void =>
      send({ type: 'log', level, fields: plain(fields), msg });
  const logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as unknown as Logger;

  const db = 'pglite' in data.database ? pgliteOverPort(data.database.pglite) : openPostgres({ ...data.database, logger });
  const redact = createRedactor(data.mode, Buffer.from(data.key));
  const key = createSecretKey(Buffer.from(data.key));
  let received = 0;
  let unbuilt = 0;
  const writer = createBatchWriter<ReceiptRow>({
    db,
    logger,
    what: 'audit receipts',
    insert: insertReceipts,
    maxQueued: data.maxQueued,
    batchSize: data.batchSize,
    flushIntervalMs: data.flushIntervalMs,
    retryForMs: data.retryForMs,
    onDrop: (n) => send({ type: 'drop', n }),
    onWritten: () => reportSoon(),
  });
  const report = () => {
    clearTimeout(reportTimer);
    reportTimer = undefined;
    const { queued, written, dropped } = writer.stats();
    send({ type: 'stats', received, queued, written, dropped: dropped + unbuilt });
  };
  /**
   * Stats cross to the request thread at most every REPORT_MS while calls flow (each message is an event for its
   * loop to run); a drain or close reports at once. The request thread only bounds its hand-offs by them.
   */
  let reportTimer: NodeJS.Timeout | undefined;
  const reportSoon = () => {
    if (reportTimer === undefined) reportTimer = setTimeout(report, REPORT_MS);
  };

  port.on('message', (message: ToThread) => {
    switch (message.type) {
      case 'facts':
        for (const facts of message.facts) {
          received++;
          try {
            writer.push(rowOfFacts(unflat(facts), redact, key));
          } catch (err) {
            logger.error({ err }, 'audit receipt could not be built; dropped'); // a bug, never the caller's problem
            unbuilt++;
            send({ type: 'drop', n: 1 });
          }
        }
        reportSoon();
        return;
      case 'drain':
        void writer.drain(message.timeoutMs).then(() => {
          report();
          send({ type: 'drained', id: message.id });
        });
        return;
      case 'close':
        void writer
          .close(message.timeoutMs)
          .then(() => db.close())
          .catch((err: unknown) => logger.warn({ err }, 'audit receipt writer: closing the database failed'))
          .then(() => {
            report();
            send({ type: 'closed' });
            port.close();
          });
        return;
      default: {
        const unknown: never = message;
        throw new Error(`unknown message ${JSON.stringify(unknown)}`);
      }
    }
  });
}

if (parentPort) run(parentPort, workerData as ReceiptThreadData);
