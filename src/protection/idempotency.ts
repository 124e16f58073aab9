import { type HubError, type Result, hubError } from '../errors';
import type { Logger } from '../logger';
import { type IdempotencyKey, type IdempotencyStore, fingerprintOf } from './idempotency-store';

/**
 * At most once per (customer, tool, request_id) for tools with side effects. The first answer is kept (success,
 * or a failure a retry would not fix) and replayed to every retry with the same inputs; a retryable failure is
 * forgotten so the agent's retry really runs again. Another request_id reuse with different inputs is a
 * CONFLICT; a retry that arrives while the first call still runs is a retryable CONFLICT.
 */

export type Guarded<T> = { outcome: Result<T>; replay: boolean };

export interface IdempotencyGuard {
  run<T>(key: IdempotencyKey, inputs: unknown, userId: string | null, work: () => Promise<Result<T>>): Promise<Guarded<T>>;
}

type Stored = { ok: true; value: unknown } | { ok: false; error: HubError };

const unavailable = () =>
  hubError('SERVICE_UNAVAILABLE', 'Cannot check this request_id right now, so the write was not attempted; retry shortly', {
    details: { reason: 'idempotency_store_unavailable' },
    retryAfterS: 1,
  });

export function createIdempotencyGuard(store: IdempotencyStore, options: { leaseMs: number; logger: Logger }): IdempotencyGuard {
  return {
    async run(key, inputs, userId, work) {
      let begun;
      try {
        begun = await store.begin(key, fingerprintOf(inputs, userId), options.leaseMs);
      } catch (err) {
        // Never run a write we cannot deduplicate: the agent retries, and nothing has happened yet.
        options.logger.warn({ err, store: store.kind }, 'idempotency store unavailable; write refused');
        return { outcome: { ok: false, error: unavailable() }, replay: false };
      }
      switch (begun.state) {
        case 'replay': {
          const stored = begun.outcome as Stored;
          return { outcome: stored.ok ? { ok: true, value: stored.value as never } : { ok: false, error: stored.error }, replay: true };
        }
        case 'in_progress':
          return {
            outcome: {
              ok: false,
              error: hubError('CONFLICT', 'A call with this request_id is still running; retry after it finishes', {
                details: { reason: 'request_in_progress', request_id: key.requestId },
                retryable: true,
                retryAfterS: begun.retryAfterS,
              }),
            },
            replay: false,
          };
        case 'mismatch':
          return {
            outcome: {
              ok: false,
              error: hubError('CONFLICT', 'This request_id was already used for this tool with different inputs; use a new request_id', {
                details: { reason: 'request_id_reused', request_id: key.requestId },
                retryable: false,
              }),
            },
            replay: false,
          };
        case 'acquired':
          break;
        default: {
          const unreachable: never = begun;
          throw new Error(`unknown idempotency state ${JSON.stringify(unreachable)}`);
        }
      }
      const outcome = await work();
      try {
        if (outcome.ok || !outcome.error.retryable) {
          const stored: Stored = outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
          await store.complete(begun.lease, stored);
        } else {
          await store.release(begun.lease);
        }
      } catch (err) {
        // The write already happened and its answer goes out. Until the lease lapses a retry gets "in progress";
        // after it, a retry could run again — logged loudly so an operator can tell.
        options.logger.error({ err, store: store.kind, tool: key.tool }, 'could not record the outcome of a write for idempotency');
      }
      return { outcome, replay: false };
    },
  };
}
