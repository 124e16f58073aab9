import { type HubError, type Result, hubError } from '../errors';
import type { Logger } from '../logger';
import { type EarlierAttempt, type IdempotencyKey, type IdempotencyStore, fingerprintOf, storageKey } from './idempotency-store';
import { createPendingOutcomes } from './idempotency-pending';

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
 */

export type Guarded<T> = { outcome: Result<T>; replay: boolean };

/** What a write learns about its request_id, and how it says its outcome is uncertain. */
export interface WriteAttempt {
  /** An earlier attempt under this request_id may have carried out the write: verify before writing again. */
  readonly earlier: EarlierAttempt | null;
  /** The write may have happened although this call fails retryably: keep the record; the retry verifies first. */
  outcomeUncertain(): void;
}

export interface IdempotencyGuard {
  run<T>(key: IdempotencyKey, inputs: unknown, userId: string | null, work: (attempt: WriteAttempt) => Promise<Result<T>>): Promise<Guarded<T>>;
  /** At shutdown: store the outcomes an outage kept in memory (see idempotency-pending.ts); resolves to how many were lost. */
  drain(timeoutMs: number): Promise<number>;
}

export type Stored = { ok: true; value: unknown } | { ok: false; error: HubError };

const unavailable = () =>
  hubError('SERVICE_UNAVAILABLE', 'Cannot check this request_id right now, so the write was not attempted; retry shortly', {
    details: { reason: 'idempotency_store_unavailable' },
    retryAfterS: 1,
  });

const replayOf = <T>(stored: Stored): Guarded<T> => ({
  outcome: stored.ok ? { ok: true, value: stored.value as T } : { ok: false, error: stored.error },
  replay: true,
});

const conflict = <T>(message: string, details: Record<string, unknown>, retryable: boolean, retryAfterS?: number): Guarded<T> => ({
  outcome: { ok: false, error: hubError('CONFLICT', message, { details, retryable, ...(retryAfterS !== undefined ? { retryAfterS } : {}) }) },
  replay: false,
});

const mismatch = <T>(requestId: string) =>
  conflict<T>(
    'This request_id was already used for this tool with different inputs; use a new request_id',
    { reason: 'request_id_reused', request_id: requestId },
    false,
  );

export function createIdempotencyGuard(store: IdempotencyStore, options: { leaseMs: number; ttlS: number; logger: Logger }): IdempotencyGuard {
  const pending = createPendingOutcomes(store, { ttlMs: options.ttlS * 1000, logger: options.logger });

  return {
    async run(key, inputs, userId, work) {
      const fingerprint = fingerprintOf(inputs, userId);
      // This replica finished the write but could not record it yet: answer from that, store or no store.
      const local = pending.get(storageKey(key));
      if (local) return local.lease.fingerprint === fingerprint ? replayOf(local.outcome as Stored) : mismatch(key.requestId);

      let begun;
      try {
        begun = await store.begin(key, fingerprint, options.leaseMs);
      } catch (err) {
        // Never run a write we cannot deduplicate: the agent retries, and nothing has happened yet.
        options.logger.warn({ err, store: store.kind }, 'idempotency store unavailable; write refused');
        return { outcome: { ok: false, error: unavailable() }, replay: false };
      }
      switch (begun.state) {
        case 'replay':
          return replayOf(begun.outcome as Stored);
        case 'in_progress':
          return conflict(
            'A call with this request_id is still running; retry after it finishes',
            { reason: 'request_in_progress', request_id: key.requestId },
            true,
            begun.retryAfterS,
          );
        case 'mismatch':
          return mismatch(key.requestId);
        case 'acquired':
          break;
        default: {
          const unreachable: never = begun;
          throw new Error(`unknown idempotency state ${JSON.stringify(unreachable)}`);
        }
      }
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
    drain: (timeoutMs) => pending.drain(timeoutMs),
  };
}
