import { type KeyObject, createSecretKey } from 'node:crypto';
import type { AuditConfig } from '../config';
import type { Logger } from '../logger';
import type { Db, Queryable } from '../store/db';
import type { HubSecrets } from '../store/hub-secrets';
import { type ConnectionEvent, connectionEventRow, insertConnectionEvents } from './connection-events';
import { type PayloadMode, createRedactor } from './redact';
import { type ReceiptWriter, inlineReceiptWriter, receiptThreadEntry, threadedReceiptWriter } from './receipt-writer';
import type { CallRecord } from './receipts';
import { createRetention } from './retention';

/**
 * The audit trail: a receipt per authenticated execute call, written by the batch writer off the request path
 * (`recordCall` returns at once, whatever state the database is in), and a row per connection event, written in
 * the transaction of the change itself (`recordConnectionEvent`): the trail cannot miss a connect, an expiry, a
 * disconnect or a working-hours change that happened, nor show one that was rolled back.
 */
export interface Audit {
  /** Loads the audit key (the first start makes it). The Hub awaits it before serving; calls never do. */
  ready(): Promise<void>;
  /**
   * Hands a finished call's facts to the receipt writer: the request thread only reads them; the call_id (an HMAC
   * over tool@version, the inputs and the request_id) and the redaction are made where the receipt is written.
   */
  recordCall(record: CallRecord): void;
  /** The event's row, written with `tx`: the transaction making the change. Nothing when the trail is off. */
  recordConnectionEvent(tx: Queryable, event: ConnectionEvent): Promise<void>;
  /** Writes everything queued (tests, benches). */
  drain(timeoutMs?: number): Promise<void>;
  /** `writer`: where receipts are made and written — a thread of their own (PostgreSQL), or the request thread. */
  stats(): { queued: number; written: number; dropped: number; writer: 'thread' | 'inline' | 'none' };
  /** Runs one retention purge now; resolves with the rows deleted per table. */
  purge(): Promise<Record<string, number>>;
  readonly payloads: PayloadMode;
  close(): Promise<void>;
}

const KEY_RETRY_MS = 5_000;
/** Calls recorded before the key is loaded wait for it here, bounded; beyond it they are dropped (counted). */
const MAX_WAITING_FOR_KEY = 1_000;

export function createAudit(deps: {
  db: Db;
  logger: Logger;
  secrets: HubSecrets;
  config: AuditConfig;
  /** Receipts dropped (database away too long, buffer full): the lead wires the metric here. */
  onDrop?: (n: number) => void;
  now?: () => number;
}): Audit {
  const { config, logger } = deps;
  const now = deps.now ?? Date.now;
  let receipts: ReceiptWriter | undefined;
  const waiting: CallRecord[] = [];
  let keyTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const writerOptions = {
    db: deps.db,
    logger,
    maxQueued: config.bufferMax,
    // Embedded PGlite executes each INSERT in this process — on its own thread by default, on the event loop with
    // HUB_PGLITE_THREAD=off: a commit costs ~1.2 ms of its own plus ~60-90 us a row, so 100 rows at a time keeps
    // that case's hold on the loop under ~10 ms, the writer yielding between statements. A server does the work in
    // its own process: 200 rows a statement.
    batchSize: deps.db.kind === 'pglite' ? 100 : 200,
    flushIntervalMs: config.flushIntervalMs,
    retryForMs: config.retryForS * 1000,
    now,
    ...(deps.onDrop ? { onDrop: deps.onDrop } : {}),
  };
  const retention = createRetention({ db: deps.db, logger, retentionDays: config.retentionDays, intervalMs: config.purgeIntervalS * 1000, now });

  /** Made once the audit key is loaded: the call_id and the redaction are keyed with it. */
  const receiptWriter = (secret: Buffer, key: KeyObject): ReceiptWriter => {
    const options = { ...writerOptions, mode: config.payloads, redact: createRedactor(config.payloads, secret), key };
    const { url, channel } = deps.db;
    const entry = (url !== undefined || channel !== undefined) && config.thread && config.enabled ? receiptThreadEntry() : undefined;
    if (entry === undefined) return inlineReceiptWriter(options);
    // PostgreSQL: two connections (a batch in flight and the next), opened by the thread — the request path's pool
    // is left alone. Embedded PGlite on its thread: a port of the receipt thread's own to it.
    const database = url !== undefined ? { url, poolMax: 2, queryTimeoutMs: deps.db.queryTimeoutMs } : { pglite: channel!() };
    return threadedReceiptWriter({ ...options, database, secret, entry });
  };

  let loading: Promise<void> | undefined;
  const load = (): Promise<void> =>
    (loading ??= deps.secrets
      .get('audit-key')
      .then((secret) => {
        if (secret === null) throw new Error('the audit key is sealed with an encryption key this Hub does not have');
        receipts = receiptWriter(secret, createSecretKey(secret));
        for (const record of waiting.splice(0)) receipts.push(record);
      })
      .catch((err: unknown) => {
        logger.warn({ err }, 'audit key not loaded yet; receipts wait for it');
        loading = undefined;
        if (!closed) {
          keyTimer = setTimeout(() => void load().catch(() => {}), KEY_RETRY_MS);
          keyTimer.unref();
        }
        throw err;
      }));

  return {
    payloads: config.payloads,
    ready: () => load(),
    recordCall(record) {
      if (!config.enabled) return;
      if (receipts !== undefined) return receipts.push(record);
      if (waiting.length >= MAX_WAITING_FOR_KEY) {
        deps.onDrop?.(1);
        return;
      }
      waiting.push(record);
      void load().catch(() => {});
    },
    async recordConnectionEvent(tx, event) {
      if (config.enabled) await insertConnectionEvents(tx, [connectionEventRow(event, now())]);
    },
    drain: async (timeoutMs) => {
      await receipts?.drain(timeoutMs);
    },
    stats() {
      const r = receipts?.stats() ?? { queued: 0, written: 0, dropped: 0, writer: 'none' as const };
      return { queued: r.queued + waiting.length, written: r.written, dropped: r.dropped, writer: r.writer };
    },
    purge: () => retention.purge(),
    async close() {
      closed = true;
      clearTimeout(keyTimer);
      retention.stop();
      await receipts?.close();
    },
  };
}
