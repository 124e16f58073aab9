import type { Logger } from '../logger';
import type { IdempotencyStore, Lease, StoredOutcome } from './idempotency-store';

/**
 * Outcomes of writes this replica finished but has not stored yet, answered from here meanwhile (the guard looks
 * here first). Two kinds:
 * - `outage`: complete() failed (a Redis or database outage mid-call). Stored again with capped exponential
 *   backoff until it lands (complete() also re-creates a record the store lost meanwhile).
 * - `deferred`: a write Google itself deduplicates, run without a lease (idempotency.ts), recorded after its
 *   answer went out. Gathered for `gatherMs` (DEFERRED_GATHER_MS) or until a batch is full, then every deferred
 *   outcome waiting is stored in one recordMany() — one round trip, one commit — and, if the store is down,
 *   retried like the others. A commit is most of a record's cost: ~1.2 ms of CPU on the embedded PGlite for one
 *   row, ~75 us a row for 20 (bench/realcall.ts, calendar_create_event at 20 concurrent: 20 ms of gathering
 *   still left ~0.23 ms a call on PGlite's thread), so stored as they came, the records of a busy embedded Hub
 *   cost more than the rest of its work on the call. Meanwhile a retry on this replica is answered from here,
 *   one on another replica (or after a crash) meets Google's own duplicate check.
 * Bounded: at most `maxEntries`, each for at most the record ttl. A graceful stop drains them (server.ts: tried
 * until the store takes them or the drain time runs out); a process that exits with entries still pending loses
 * them, logged with their count — a retry then takes the key over and is told to verify first (an outage entry),
 * or meets Google's own duplicate check (a deferred one).
 */

export interface PendingOutcome {
  lease: Lease;
  outcome: StoredOutcome;
  expiresAt: number;
  kind: 'outage' | 'deferred';
}

export interface PendingOutcomes {
  add(lease: Lease, outcome: StoredOutcome, kind?: PendingOutcome['kind']): void;
  get(key: string): PendingOutcome | undefined;
  /** At shutdown: store what is pending, retrying within `timeoutMs`; resolves to how many could not be stored. */
  drain(timeoutMs: number): Promise<number>;
  /** How many outcomes wait to be stored (the `hub_idempotency_unrecorded_outcomes` gauge). */
  size(): number;
}

/** At most this many deferred outcomes per recordMany(). */
const BATCH = 256;
/** How long deferred outcomes gather before they are stored together (see above). */
export const DEFERRED_GATHER_MS = 100;

export function createPendingOutcomes(
  store: IdempotencyStore,
  options: { ttlMs: number; logger: Logger; maxEntries?: number; firstRetryMs?: number; maxRetryMs?: number; gatherMs?: number },
): PendingOutcomes {
  const maxEntries = options.maxEntries ?? 10_000;
  const firstRetryMs = options.firstRetryMs ?? 250;
  const maxRetryMs = options.maxRetryMs ?? 5_000;
  const gatherMs = options.gatherMs ?? DEFERRED_GATHER_MS;
  const entries = new Map<string, PendingOutcome>(); // insertion order = oldest first
  let timer: NodeJS.Timeout | undefined;
  let flushing = false;
  let failing = false; // the last round found the store down: backing off, warned once
  let waitMs = firstRetryMs;

  const schedule = () => {
    if (timer || flushing || entries.size === 0) return;
    timer = setTimeout(() => void flush(), waitMs);
    timer.unref(); // never keeps a process alive that is otherwise done
  };
  /** A new entry: within gatherMs when the store is answering (a deferred record), else after the first retry delay. */
  const soon = (kind: PendingOutcome['kind']) => {
    if (failing) return schedule();
    // A full batch waits no longer; nor does a deferred record behind an outage retry's longer delay.
    if (kind === 'deferred' && timer && (waitMs > gatherMs || entries.size >= BATCH)) {
      clearTimeout(timer);
      timer = undefined;
    }
    waitMs = kind === 'deferred' ? (entries.size >= BATCH ? 0 : gatherMs) : firstRetryMs;
    schedule();
  };

  /** Stores the waiting deferred outcomes, a batch per round trip; false when the store failed. */
  async function recordDeferred(): Promise<boolean> {
    const waiting = [...entries.values()].filter((e) => e.kind === 'deferred');
    for (let at = 0; at < waiting.length; at += BATCH) {
      const batch = waiting.slice(at, at + BATCH);
      try {
        await store.recordMany(batch);
      } catch (err) {
        if (!failing)
          options.logger.warn({ err, store: store.kind, waiting: waiting.length - at }, 'could not record write outcomes; keeping them and retrying');
        return false;
      }
      // Written, or the key already held a live record (which then answers retries): either way, done here —
      // unless the call was repeated meanwhile and its entry replaced. What arrived meanwhile goes next round.
      for (const e of batch) if (entries.get(e.lease.key) === e) entries.delete(e.lease.key);
    }
    return true;
  }

  /** One round: drop what outlived its ttl, store the deferred outcomes, then the outage ones; false if the store failed. */
  async function round(): Promise<boolean> {
    for (const [key, entry] of entries) {
      if (entry.expiresAt > Date.now()) continue;
      entries.delete(key);
      options.logger.error({ store: store.kind }, 'gave up recording the outcome of a write: its record ttl passed while the store was down');
    }
    if (!(await recordDeferred())) return false;
    for (const [key, entry] of entries) {
      if (entry.kind !== 'outage') continue;
      try {
        const result = await store.complete(entry.lease, entry.outcome);
        entries.delete(key);
        options.logger.info({ store: store.kind, result }, 'recorded the outcome of an earlier write');
      } catch {
        return false; // still down: try the rest next round
      }
    }
    return true;
  }

  async function flush() {
    timer = undefined;
    flushing = true;
    const storeDown = !(await round().finally(() => (flushing = false)));
    failing = storeDown;
    // Up: whatever arrived during this round gathers for the next (deferred outcomes wait for nothing else).
    waitMs = storeDown ? Math.min(waitMs * 2, maxRetryMs) : gatherMs;
    schedule();
  }

  return {
    add(lease, outcome, kind = 'outage') {
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
        options.logger.error(
          { store: store.kind, max_entries: maxEntries },
          'too many unrecorded write outcomes; dropped the oldest (a retry of it verifies first)',
        );
      }
      entries.delete(lease.key); // a replaced entry moves to the end: insertion order stays oldest first
      entries.set(lease.key, { lease, outcome, expiresAt: Date.now() + options.ttlMs, kind });
      soon(kind);
    },
    get: (key) => entries.get(key),
    size: () => entries.size,
    async drain(timeoutMs) {
      const until = Date.now() + timeoutMs;
      clearTimeout(timer);
      timer = undefined;
      while (entries.size > 0 && Date.now() < until) {
        while (flushing) await new Promise((resolve) => setTimeout(resolve, 10)); // a scheduled round is running
        if (entries.size === 0) break;
        await flush();
        clearTimeout(timer); // flush() scheduled its own next round: this loop is the schedule now
        timer = undefined;
        if (entries.size > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, Math.max(0, until - Date.now()))));
      }
      if (entries.size > 0) {
        options.logger.error(
          { store: store.kind, lost: entries.size },
          'stopping with write outcomes the store never took; a retry of each verifies before writing',
        );
      }
      return entries.size;
    },
  };
}
