import type { Result } from '../core/errors';
import { type Guarded, type Stored, answerOfRecord, mismatch, replayOf, storeUnreachable } from './idempotency-answers';
import type { Logger } from '../logger';
import { type IdempotencyKey, type IdempotencyStore, type WriteAttempt, fingerprintOf, storageKey } from './idempotency-store';
import { createPendingOutcomes } from './idempotency-pending';
import { type Prefetched, createDeduplicatedRuns } from './idempotency-deduplicated';

/**
 * At most once per (customer, tool, request_id) for tools with side effects. The first answer is kept (success,
 * or a failure a retry would not fix) and replayed to every retry with the same inputs; a retryable failure is
 * forgotten so the agent's retry really runs again — unless the tool said its write may have happened anyway
 * (outcomeUncertain), in which case the record stays and the retry is told to verify first. Another request_id
 * reuse with different inputs is a CONFLICT; a retry that arrives while the first call still runs is a
 * retryable CONFLICT.
 *
 * An outcome the store could not take (it went down mid-call) is kept here and stored again in the background
 * until it lands; retries reaching this replica meanwhile are answered from it.
 *
 * A write that Google itself refuses to apply twice (`deduplicatedUpstream`: calendar_create_event names its
 * event with an id derived from the request_id, and Google answers a repeat with 409 `duplicate`) needs no lease
 * in the store to be at-most-once: the record is then only the memory of its first answer. Such a call begins
 * with a read (look; on Redis it travels with the rate-limit charge) instead of a write, holds its lease in this
 * process (a repeat arriving here meanwhile is told `request_in_progress`, as usual), and its outcome is recorded
 * after the answer goes out, batched with the others (idempotency-pending.ts). What that saves: on the embedded
 * PGlite two durable commits per call (~1.2 ms of CPU each), on Redis two round trips. What it gives up: nothing
 * of at-most-once — a repeat on another replica, or after a crash before the record landed, runs again and meets
 * Google's 409, and the tool answers with the event it finds (or CONFLICT if the request_id was used for another
 * event).
 */

export type { Guarded, WriteAttempt };

export interface GuardOptions {
  /** Google refuses to apply a repeat of this write (see above): no lease in the store, the record written after. */
  deduplicatedUpstream?: boolean;
  /** From prefetch(), for such a write. */
  prefetched?: Prefetched | null;
}

export interface IdempotencyGuard {
  run<T>(
    key: IdempotencyKey,
    inputs: unknown,
    userId: string | null,
    work: (attempt: WriteAttempt) => Promise<Result<T>>,
    options?: GuardOptions,
  ): Promise<Guarded<T>>;
  /**
   * For a write Google deduplicates, before its request is fully read: starts reading the record its key holds,
   * when that costs nothing extra — on Redis, the read then travels with the rate-limit charge in one round trip.
   * Null when the store is a database (a call the limits refuse must not cost a query).
   */
  prefetch(key: IdempotencyKey): Prefetched | null;
  /** At shutdown: store the outcomes an outage kept in memory (see idempotency-pending.ts); resolves to how many were lost. */
  drain(timeoutMs: number): Promise<number>;
  /** Outcomes this replica answered but has not stored yet (deferred records, and outages). */
  unrecorded(): number;
}

export function createIdempotencyGuard(store: IdempotencyStore, options: { leaseMs: number; ttlS: number; logger: Logger }): IdempotencyGuard {
  const pending = createPendingOutcomes(store, { ttlMs: options.ttlS * 1000, logger: options.logger });
  const deduplicated = createDeduplicatedRuns(store, pending, options.leaseMs, options.logger);

  return {
    async run(key, inputs, userId, work, runOptions) {
      const fingerprint = fingerprintOf(inputs, userId);
      if (runOptions?.deduplicatedUpstream) return deduplicated.run(key, fingerprint, work, runOptions.prefetched ?? undefined);
      // This replica finished the write but has not recorded it yet: answer from that, store or no store.
      const local = pending.get(storageKey(key));
      if (local) return local.lease.fingerprint === fingerprint ? replayOf(local.outcome as Stored) : mismatch(key.requestId);

      let begun;
      try {
        begun = await store.begin(key, fingerprint, options.leaseMs);
      } catch (err) {
        return storeUnreachable(options.logger, err, store.kind);
      }
      if (begun.state !== 'acquired') return answerOfRecord(begun, key.requestId)!;
      const { lease, earlier } = begun;
      let uncertain = false;
      const outcome = await work({
        earlier,
        outcomeUncertain: () => {
          uncertain = true;
        },
      });
      const log = { store: store.kind, tool: key.tool };
      if (outcome.ok || !outcome.error.retryable) {
        const stored: Stored = outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
        try {
          if ((await store.complete(lease, stored)) === 'superseded') {
            options.logger.warn(log, 'another attempt took over this request_id while the write ran; it records what it verifies');
          }
        } catch (err) {
          // The write already happened and its answer goes out: keep it here and store it as soon as the store answers.
          options.logger.warn({ ...log, err }, 'could not record the outcome of a write; keeping it and retrying in the background');
          pending.add(lease, stored);
        }
      } else {
        try {
          await (uncertain ? store.abandon(lease) : store.release(lease));
        } catch (err) {
          // The record keeps its lease until it passes; a retry then takes over and verifies — slower, never twice.
          options.logger.warn({ ...log, err }, 'could not release an idempotency record; a retry waits for its lease');
        }
      }
      return { outcome, replay: false };
    },
    prefetch(key) {
      if (store.kind !== 'redis') return null;
      const found = store.look(key);
      found.catch(() => {}); // awaited (and its failure answered) only if the call gets that far
      return { storage: storageKey(key), found };
    },
    drain: (timeoutMs) => pending.drain(timeoutMs),
    unrecorded: () => pending.size(),
  };
}
