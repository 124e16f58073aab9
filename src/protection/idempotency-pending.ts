import type { Logger } from '../logger';
import type { IdempotencyStore, Lease, StoredOutcome } from './idempotency-store';

/**
 * Outcomes of writes that happened while the idempotency store could not take them (a Redis or database
 * outage mid-call). Each is kept in memory and stored again with capped exponential backoff until it lands
 * (complete() also re-creates a record the store lost meanwhile), and the guard answers retries of its key from
 * here. Bounded: at most `maxEntries`, each for at most the record ttl. A graceful stop drains them (server.ts:
 * tried until the store takes them or the drain time runs out); a process that exits with entries still
 * pending loses them, logged with their count — a retry then takes the key over and is told to verify first.
 */

export interface PendingOutcome {
  lease: Lease;
  outcome: StoredOutcome;
  expiresAt: number;
}

export interface PendingOutcomes {
  add(lease: Lease, outcome: StoredOutcome): void;
  get(key: string): PendingOutcome | undefined;
  /** At shutdown: store what is pending, retrying within `timeoutMs`; resolves to how many could not be stored. */
  drain(timeoutMs: number): Promise<number>;
}

export function createPendingOutcomes(
  store: IdempotencyStore,
  options: { ttlMs: number; logger: Logger; maxEntries?: number; firstRetryMs?: number; maxRetryMs?: number },
): PendingOutcomes {
  const maxEntries = options.maxEntries ?? 10_000;
  const firstRetryMs = options.firstRetryMs ?? 250;
  const maxRetryMs = options.maxRetryMs ?? 5_000;
  const entries = new Map<string, PendingOutcome>(); // insertion order = oldest first
  let timer: NodeJS.Timeout | undefined;
  let flushing = false;
  let waitMs = firstRetryMs;

  const schedule = () => {
    if (timer || flushing || entries.size === 0) return;
    timer = setTimeout(() => void flush(), waitMs);
    timer.unref(); // never keeps a process alive that is otherwise done
  };

  async function flush() {
    timer = undefined;
    flushing = true;
    let storeDown = false;
    try {
      for (const [key, entry] of entries) {
        if (entry.expiresAt <= Date.now()) {
          entries.delete(key);
          options.logger.error({ store: store.kind }, 'gave up recording the outcome of a write: its record ttl passed while the store was down');
          continue;
        }
        try {
          const result = await store.complete(entry.lease, entry.outcome);
          entries.delete(key);
          options.logger.info({ store: store.kind, result }, 'recorded the outcome of an earlier write');
        } catch {
          storeDown = true; // still down: try the rest next round
          break;
        }
      }
    } finally {
      flushing = false;
    }
    waitMs = storeDown ? Math.min(waitMs * 2, maxRetryMs) : firstRetryMs;
    schedule();
  }

  return {
    add(lease, outcome) {
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
        options.logger.error(
          { store: store.kind, max_entries: maxEntries },
          'too many unrecorded write outcomes; dropped the oldest (a retry of it verifies first)',
        );
      }
      entries.set(lease.key, { lease, outcome, expiresAt: Date.now() + options.ttlMs });
      waitMs = firstRetryMs;
      schedule();
    },
    get: (key) => entries.get(key),
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
