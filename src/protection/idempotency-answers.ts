import { type HubError, type Result, hubError } from '../core/errors';
import type { Logger } from '../logger';
import type { BeginResult, PeekResult } from './idempotency-store';

/** The guard's answers (idempotency.ts): a replay, a refusal, or the store being out of reach. */

export type Guarded<T> = { outcome: Result<T>; replay: boolean };

export type Stored = { ok: true; value: unknown } | { ok: false; error: HubError };

/** Never run a write whose request_id cannot be checked: the agent retries, and nothing has happened yet. */
export function storeUnreachable<T>(logger: Logger, err: unknown, store: string): Guarded<T> {
  logger.warn({ err, store }, 'idempotency store unavailable; write refused');
  return { outcome: { ok: false, error: unavailable() }, replay: false };
}

const unavailable = () =>
  hubError('SERVICE_UNAVAILABLE', 'Cannot check this request_id right now, so the write was not attempted; retry shortly', {
    details: { reason: 'idempotency_store_unavailable' },
    retryAfterS: 1,
  });

export const replayOf = <T>(stored: Stored): Guarded<T> => ({
  outcome: stored.ok ? { ok: true, value: stored.value as T } : { ok: false, error: stored.error },
  replay: true,
});

const conflict = <T>(message: string, details: Record<string, unknown>, retryable: boolean, retryAfterS?: number): Guarded<T> => ({
  outcome: { ok: false, error: hubError('CONFLICT', message, { details, retryable, ...(retryAfterS !== undefined ? { retryAfterS } : {}) }) },
  replay: false,
});

export const mismatch = <T>(requestId: string) =>
  conflict<T>(
    'This request_id was already used for this tool with different inputs; use a new request_id',
    { reason: 'request_id_reused', request_id: requestId },
    false,
  );

export const inProgress = <T>(requestId: string, retryAfterS: number) =>
  conflict<T>(
    'A call with this request_id is still running; retry after it finishes',
    { reason: 'request_in_progress', request_id: requestId },
    true,
    retryAfterS,
  );

/**
 * What a key already holds decides the call, begun (BeginResult) or looked at (PeekResult): a replay, another
 * inputs' CONFLICT, or a retryable CONFLICT while it runs elsewhere. Null: the call may run (`acquired`, `free`).
 */
export function answerOfRecord<T>(found: BeginResult | PeekResult, requestId: string): Guarded<T> | null {
  switch (found.state) {
    case 'replay':
      return replayOf(found.outcome as Stored);
    case 'in_progress':
      return inProgress(requestId, found.retryAfterS);
    case 'mismatch':
      return mismatch(requestId);
    case 'acquired':
    case 'free':
      return null;
    default: {
      const unreachable: never = found;
      throw new Error(`unknown idempotency state ${JSON.stringify(unreachable)}`);
    }
  }
}
