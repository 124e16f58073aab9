import { randomUUID } from 'node:crypto';
import type { Result } from '../core/errors';
import type { Logger } from '../logger';
import { type Guarded, type Stored, answerOfRecord, inProgress, mismatch, replayOf, storeUnreachable } from './idempotency-answers';
import type { PendingOutcomes } from './idempotency-pending';
import {
  type Found,
  type IdempotencyKey,
  type IdempotencyStore,
  type PeekResult,
  type WriteAttempt,
  classifyFound,
  retryAfterSeconds,
  storageKey,
} from './idempotency-store';

/**
 * The guard for writes Google itself deduplicates (idempotency.ts, `deduplicatedUpstream`). The store is read,
 * never written, before the call: a finished record is replayed, other inputs under the key are refused, and a
 * lease another replica still holds (a fenced attempt, e.g. from a Hub of an earlier version) is respected. The
 * lease of this call lives in this process only, so a repeat arriving here while it runs is told
 * `request_in_progress`. A finished outcome (success, or a failure a retry would not fix) is handed to the
 * pending outcomes before the lease here ends — retries are answered from there until the store has it — and
 * recorded after the answer has gone out, batched with the others.
 */

/**
 * A look() started early — on Redis, beside the rate-limit charge, so the two share one round trip — for the key
 * a call will use if its request turns out valid (`storage`: the key it read; run() uses it only if it matches).
 */
export interface Prefetched {
  storage: string;
  found: Promise<Found>;
}

export interface DeduplicatedRuns {
  run<T>(key: IdempotencyKey, fingerprint: string, work: (attempt: WriteAttempt) => Promise<Result<T>>, prefetched?: Prefetched): Promise<Guarded<T>>;
}

/** Google's 409 covers a repeat, so there is nothing for the tool to verify and nothing uncertain to keep. */
const NOTHING_EARLIER: WriteAttempt = { earlier: null, outcomeUncertain: () => {} };

export function createDeduplicatedRuns(store: IdempotencyStore, pending: PendingOutcomes, leaseMs: number, logger: Logger): DeduplicatedRuns {
  const running = new Map<string, { fingerprint: string; until: number }>();

  /** A call with this key is running in this process, or has finished here and waits to be recorded. */
  const here = <T>(storage: string, key: IdempotencyKey, fingerprint: string): Guarded<T> | null => {
    const done = pending.get(storage);
    if (done) return done.lease.fingerprint === fingerprint ? replayOf(done.outcome as Stored) : mismatch(key.requestId);
    const held = running.get(storage);
    if (!held) return null;
    return held.fingerprint === fingerprint ? inProgress(key.requestId, retryAfterSeconds(held.until - performance.now())) : mismatch(key.requestId);
  };

  return {
    async run(key, fingerprint, work, prefetched) {
      const storage = storageKey(key);
      const early = here<never>(storage, key, fingerprint);
      if (early) return early;
      let found: PeekResult;
      try {
        found = classifyFound(await (prefetched?.storage === storage ? prefetched.found : store.look(key)), fingerprint);
      } catch (err) {
        return storeUnreachable(logger, err, store.kind);
      }
      // While the store answered, a call with this key may have started or finished here.
      const answered = here<never>(storage, key, fingerprint) ?? answerOfRecord<never>(found, key.requestId);
      if (answered) return answered;
      running.set(storage, { fingerprint, until: performance.now() + leaseMs });
      try {
        const outcome = await work(NOTHING_EARLIER);
        if (outcome.ok || !outcome.error.retryable) {
          const stored: Stored = outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
          pending.add({ key: storage, owner: randomUUID(), fingerprint }, stored, 'deferred');
        }
        return { outcome, replay: false };
      } finally {
        running.delete(storage);
      }
    },
  };
}
