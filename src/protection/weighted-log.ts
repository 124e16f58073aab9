/**
 * The in-memory sliding log behind a mailbox budget (sliding-quota.ts): per mailbox, one entry per charge — its
 * time and its weight (1 request, or a request body's bytes) — and the running total of the weights still within
 * the window. A charge is amortized O(1): entries leave from the front as they leave the window, each once, and the
 * total never needs a re-count. A budget of bytes therefore costs one entry per request, not one per byte (Outlook:
 * "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period",
 * learn.microsoft.com/graph/throttling-limits#outlook-service-limits).
 */

/** One mailbox's entries, oldest first; those before `head` have left the window (kept until compacted). */
interface Log {
  at: number[];
  weight: number[];
  head: number;
  total: number;
}

/** What one charge got: admitted, or refused with the wait until enough weight leaves (or never, when it exceeds the budget). */
export type LogAnswer = { ok: true } | { ok: false; waitMs: number; neverFits: boolean };

/** Entries dropped from the front are compacted away once they are this many and at least half the arrays. */
const COMPACT_AFTER = 1024;

export interface WeightedLog {
  /** Admits `weight` at `now()` when it fits within `limit` over the window, else says how long until it would. */
  charge(key: string, weight: number): LogAnswer;
  /** The weight `key` holds within the window now (for tests and diagnostics). */
  used(key: string): number;
}

export function createWeightedLog(limit: number, windowMs: number, now: () => number = Date.now): WeightedLog {
  const logs = new Map<string, Log>();
  let sweptAt = now();

  const prune = (log: Log, at: number) => {
    const edge = at - windowMs;
    while (log.head < log.at.length && log.at[log.head]! <= edge) log.total -= log.weight[log.head++]!;
    if (log.head >= COMPACT_AFTER && log.head * 2 >= log.at.length) {
      // Moves at most as many entries as were dropped since the last compaction: amortized O(1) per charge.
      log.at.splice(0, log.head);
      log.weight.splice(0, log.head);
      log.head = 0;
    }
  };

  const sweep = (at: number) => {
    // Forget mailboxes idle for a whole window, at most once per window: memory stays bounded by active mailboxes.
    if (at - sweptAt <= windowMs) return;
    for (const [k, log] of logs) if (log.at[log.at.length - 1]! <= at - windowMs) logs.delete(k);
    sweptAt = at;
  };

  return {
    charge(key, weight) {
      const at = now();
      sweep(at);
      if (weight > limit) return { ok: false, waitMs: windowMs, neverFits: true };
      let log = logs.get(key);
      if (!log) {
        log = { at: [], weight: [], head: 0, total: 0 };
        logs.set(key, log);
      }
      prune(log, at);
      if (log.total + weight <= limit) {
        log.at.push(at);
        log.weight.push(weight);
        log.total += weight;
        return { ok: true };
      }
      // The exact wait: until the oldest entries whose weight makes room have left the window.
      let need = log.total + weight - limit;
      let i = log.head;
      while (i < log.at.length - 1 && need > log.weight[i]!) need -= log.weight[i++]!;
      return { ok: false, waitMs: Math.max(1, log.at[i]! + windowMs - at), neverFits: false };
    },
    used(key) {
      const log = logs.get(key);
      if (!log) return 0;
      prune(log, now());
      return log.total;
    },
  };
}
