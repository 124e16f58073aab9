import type { Result } from '../core/errors';

/**
 * One attempt at one vendor operation within a call, as the receipt lists it: a Google API method
 * (`gmail.users.messages.send`) or a Microsoft Graph operation (`messages.send`). The contract calls the list
 * `google_operations`, a name kept for compatibility from when Google was the only vendor.
 */
export interface VendorOp {
  operation: string;
  /** The vendor's HTTP status, or what happened instead: 'timeout', 'network', 'aborted'. */
  status: number | string;
  ms: number;
}

/**
 * The vendor attempts a call made, as its receipt lists them: the operation and the vendor's HTTP status, or what
 * happened instead of an answer. Observes the promise of one attempt (googleapis or Graph) without changing it.
 */
export type OnVendorAttempt = (op: VendorOp) => void;

function statusOfAnswer(value: unknown): number {
  const status = (value as { status?: unknown } | null | undefined)?.status;
  return typeof status === 'number' ? status : 200;
}

function statusOfFailure(err: unknown): number | string {
  const e = err as { response?: { status?: unknown }; status?: unknown; name?: unknown; code?: unknown } | null | undefined;
  if (typeof e?.response?.status === 'number') return e.response.status;
  if (typeof e?.status === 'number') return e.status;
  if (e?.name === 'TaskCancelledError' || e?.name === 'AbortError' || e?.code === 'ABORT_ERR') return 'timeout';
  return 'network';
}

export function observeAttempt<T>(record: OnVendorAttempt | undefined, operation: string, attempt: Promise<T>): Promise<T> {
  if (record === undefined) return attempt;
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  return attempt.then(
    (value) => {
      record({ operation, status: statusOfAnswer(value), ms: ms() });
      return value;
    },
    (err: unknown) => {
      record({ operation, status: statusOfFailure(err), ms: ms() });
      throw err;
    },
  );
}

/** A token refresh the call made (the vendor's token endpoint), listed as `oauth2.token`: its outcome as far as the Hub saw it. */
export function noteTokenRefresh(record: OnVendorAttempt | undefined, made: boolean, outcome: Result<unknown>, t0: number): void {
  if (record === undefined || !made) return;
  record({ operation: 'oauth2.token', status: outcome.ok ? 200 : outcome.error.code, ms: Math.round(performance.now() - t0) });
}
