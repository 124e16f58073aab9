import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger';
import type { Db } from '../store/db';
import { createBatchWriter } from './batch-writer';
import { valuesWithin } from './call-id';
import type { FromThread, ReceiptThreadData, ToThread } from './receipt-thread';
import {
  type CallRecord,
  type ReceiptFacts,
  type ReceiptRow,
  type WaitingFacts,
  callIdOfFacts,
  insertReceipts,
  receiptFacts,
  redactFacts,
  rowOfFacts,
  unflat,
} from './receipts';
import { MAX_INPUT_NODES, MAX_NODES, type PayloadMode, type Redactor } from './redact';

/**
 * Where receipts go once a call has answered. Two writers with one contract (push never waits and never throws;
 * drain, stats and close as the batch writer's):
 *  - inline: the row is made (payloads redacted, serialised) and written in batches on the request thread — the
 *    embedded PGlite runs inside this thread anyway;
 *  - threaded (PostgreSQL, and PGlite on its thread): the request thread only reads the call's facts and hands them,
 *    a batch at a time, to a thread of their own (receipt-thread.ts), which makes the call_id (an HMAC), redacts,
 *    serialises and writes them. That was most of an audited call's cost on the request thread. Should the thread
 *    die, what it held is counted as dropped and the inline writer takes over.
 */
export interface ReceiptWriter {
  push(record: CallRecord): void;
  drain(timeoutMs?: number): Promise<void>;
  stats(): { queued: number; written: number; dropped: number; writer: 'thread' | 'inline' };
  close(timeoutMs?: number): Promise<void>;
}

export interface ReceiptWriterOptions {
  db: Db;
  logger: Logger;
  mode: PayloadMode;
  redact: Redactor;
  /** The audit key: the call_id's HMAC. */
  key: KeyObject;
  maxQueued: number;
  batchSize: number;
  flushIntervalMs: number;
  retryForMs: number;
  onDrop?: (n: number) => void;
  now?: () => number;
}

/** The inline writer, taking facts (the threaded writer's fallback hands it what it had not handed off yet). */
function inlineFactsWriter(o: ReceiptWriterOptions) {
  const writer = createBatchWriter<ReceiptRow>({ ...o, what: 'audit receipts', insert: insertReceipts });
  return {
    pushFacts(facts: ReceiptFacts) {
      try {
        writer.push(rowOfFacts(facts, o.redact, o.key));
      } catch (err) {
        o.logger.error({ err }, 'audit receipt could not be built; dropped'); // a bug, never the caller's problem
        o.onDrop?.(1);
      }
    },
    drain: (timeoutMs?: number) => writer.drain(timeoutMs),
    stats: () => ({ ...writer.stats(), writer: 'inline' as const }),
    close: (timeoutMs?: number) => writer.close(timeoutMs),
  };
}

export function inlineReceiptWriter(o: ReceiptWriterOptions): ReceiptWriter {
  const inline = inlineFactsWriter(o);
  return { ...inline, push: (record) => inline.pushFacts(receiptFacts(record, o.mode)) };
}

/** The thread's entry: compiled next to this file; under jest (TypeScript sources) the build's copy in dist/. */
export function receiptThreadEntry(): string | undefined {
  const compiled = __filename.endsWith('.js') ? join(__dirname, 'receipt-thread.js') : join(__dirname, '..', '..', 'dist', 'src', 'audit', 'receipt-thread.js');
  return existsSync(compiled) ? compiled : undefined;
}

/**
 * Facts wait on the request thread until this many, or HAND_OFF_MS, then cross to the writer's thread together:
 * each crossing costs the request thread a structured clone's fixed part and a wake-up of the other thread
 * (~50-90 us on a busy 2-core VM, more with the thread's answers it brings back), shared by every call in it. With
 * 25 ms here an embedded Hub's request thread measured 0.2-0.35 ms a call more than with 100 ms (bench:realcall,
 * 20 concurrent availability calls). The writer flushes every HUB_AUDIT_FLUSH_MS (250) anyway, so a receipt is
 * written within ~0.35 s of its answer either way; a graceful stop hands off what waits (close) before the thread
 * writes its last batch, so no receipt is lost to the wait.
 */
const HAND_OFF_AT = 128;
const HAND_OFF_MS = 100;

/**
 * A payload larger than the redactor would read is redacted here, by the redactor's own bounded walk, rather than
 * copied whole to the thread (a hostile body can hold 30,000 keys): the work stays bounded either way. A refused
 * call keeps no payload: its call_id is made here when its inputs are that large, and they are not sent at all.
 */
function bounded(f: ReceiptFacts, o: ReceiptWriterOptions): ReceiptFacts {
  if (f.redacted) return valuesWithin(f.inputs, MAX_INPUT_NODES) < 0 ? { ...f, callId: callIdOfFacts(f, o.key), inputs: null } : f;
  const over = valuesWithin(f.inputs, MAX_INPUT_NODES) < 0 || valuesWithin(f.output, MAX_NODES) < 0 || valuesWithin(f.error?.details, MAX_NODES) < 0;
  return over ? redactFacts(f, o.redact, o.key) : f;
}

/**
 * Facts as they wait for the hand-off: their JSON, so that what waits up to HAND_OFF_MS is one flat string per call
 * rather than the call's body and answer as trees the garbage collector copies and promotes meanwhile, and the
 * hand-off copies bytes rather than walking objects. Measured on bench:realcall (20 concurrent availability calls, a
 * 2-core VM at load average 12), the request thread's CPU for the push and hand-off fell from 58-63 us a call to
 * 36-47 us (JSON.stringify included). The facts are the call's
 * JSON body and its answer, which went out as JSON: nothing is lost in the form. Facts JSON cannot write (a BigInt
 * in an error's details) wait as objects, as before.
 */
function flat(facts: ReceiptFacts): WaitingFacts {
  try {
    return JSON.stringify(facts);
  } catch {
    return facts;
  }
}

export function threadedReceiptWriter(o: ReceiptWriterOptions & { database: ReceiptThreadData['database']; secret: Buffer; entry: string }): ReceiptWriter {
  const data: ReceiptThreadData = {
    database: o.database,
    mode: o.mode,
    key: new Uint8Array(o.secret),
    batchSize: o.batchSize,
    maxQueued: o.maxQueued,
    flushIntervalMs: o.flushIntervalMs,
    retryForMs: o.retryForMs,
  };
  const transferList = 'pglite' in o.database ? [o.database.pglite] : [];
  // Named `hub-receipts` for the OS (top -H, /proc/<pid>/task/*/comm): the benches split the Hub's CPU by thread.
  const worker = new Worker(o.entry, { name: 'hub-receipts', workerData: data, transferList, stdout: false, stderr: false });
  let pending: WaitingFacts[] = [];
  let timer: NodeJS.Timeout | undefined;
  const thread = { received: 0, queued: 0, written: 0, dropped: 0 };
  let sent = 0;
  let localDrops = 0;
  let fallback: ReturnType<typeof inlineFactsWriter> | undefined;
  let closing = false;
  let nextId = 0;
  const waiters = new Map<number, () => void>();
  let onClosed: (() => void) | undefined;

  const post = (message: ToThread) => worker.postMessage(message);
  const handOff = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0 || fallback) return;
    const facts = pending;
    pending = [];
    sent += facts.length;
    post({ type: 'facts', facts });
  };
  const drop = (n: number) => {
    localDrops += n;
    o.onDrop?.(n);
  };

  worker.on('message', (m: FromThread) => {
    switch (m.type) {
      case 'stats':
        Object.assign(thread, { received: m.received, queued: m.queued, written: m.written, dropped: m.dropped });
        return;
      case 'drop':
        o.onDrop?.(m.n);
        return;
      case 'log':
        o.logger[m.level](m.fields, m.msg);
        return;
      case 'drained':
        waiters.get(m.id)?.();
        waiters.delete(m.id);
        return;
      case 'closed':
        onClosed?.();
        return;
    }
  });
  const failed = (err: unknown) => {
    if (fallback || closing) return;
    // What the thread held and never wrote is lost with it.
    const lost = sent - thread.written - thread.dropped;
    o.logger.error({ err, lost }, 'audit receipt thread failed; receipts are written on the request thread from now on');
    if (lost > 0) drop(lost);
    fallback = inlineFactsWriter(o);
    for (const waiting of pending.splice(0)) fallback.pushFacts(unflat(waiting));
    for (const resolve of waiters.values()) resolve();
    waiters.clear();
  };
  worker.on('error', failed);
  worker.on('exit', (code) => failed(new Error(`the thread exited with code ${code}`)));
  // Never what keeps the process alive (close() flushes it; its waits hold timers of their own). After the
  // listeners: a 'message' listener refs the worker again.
  worker.unref();

  const inFlight = () => pending.length + (sent - thread.received) + thread.queued;

  return {
    push(record) {
      let facts: ReceiptFacts;
      try {
        facts = bounded(receiptFacts(record, o.mode), o);
      } catch (err) {
        o.logger.error({ err }, 'audit receipt could not be built; dropped');
        return drop(1);
      }
      if (fallback) return fallback.pushFacts(facts);
      if (closing || inFlight() >= o.maxQueued) return drop(1);
      pending.push(flat(facts));
      if (pending.length >= HAND_OFF_AT) handOff();
      else if (timer === undefined) {
        timer = setTimeout(handOff, HAND_OFF_MS);
        timer.unref();
      }
    },
    async drain(timeoutMs = 10_000) {
      if (fallback) return fallback.drain(timeoutMs);
      handOff();
      const id = nextId++;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, timeoutMs + 1_000);
        waiters.set(id, () => {
          clearTimeout(t);
          resolve();
        });
        post({ type: 'drain', id, timeoutMs });
      });
    },
    stats: () => {
      if (fallback) {
        const inline = fallback.stats();
        return { ...inline, written: inline.written + thread.written, dropped: inline.dropped + thread.dropped + localDrops };
      }
      return { queued: inFlight(), written: thread.written, dropped: thread.dropped + localDrops, writer: 'thread' as const };
    },
    async close(timeoutMs = 5_000) {
      if (fallback) return fallback.close(timeoutMs);
      handOff();
      closing = true;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, timeoutMs + 1_000);
        onClosed = () => {
          clearTimeout(t);
          resolve();
        };
        post({ type: 'close', timeoutMs });
      });
      const unwritten = inFlight();
      if (unwritten > 0) drop(unwritten);
      await worker.terminate();
    },
  };
}
