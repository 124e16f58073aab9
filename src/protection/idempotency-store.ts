import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/**
 * Idempotency records for tools with side effects. `context.request_id` is the key, scoped to (customer, tool):
 * the first call with a key runs the tool; a repeat with the same inputs replays its stored outcome; a repeat
 * with other inputs is refused. A running call holds a lease (tool deadline + margin) so a replica killed
 * mid-call cannot wedge the key: once the lease has passed, a retry with the same fingerprint takes over.
 * Two implementations: Redis (shared by every replica, when configured) and the database.
 */

export interface IdempotencyKey {
  customerId: string;
  tool: string;
  requestId: string;
}

/** What is replayed: opaque JSON the caller gives to complete(). */
export type StoredOutcome = Record<string, unknown>;

export type BeginResult =
  | { state: 'acquired'; lease: Lease } // run the tool, then complete() or release()
  | { state: 'replay'; outcome: StoredOutcome } // same fingerprint, finished earlier
  | { state: 'in_progress'; retryAfterS: number } // same fingerprint, another call holds a live lease
  | { state: 'mismatch' }; // different fingerprint (running or finished)

export interface Lease {
  readonly key: string;
  readonly owner: string;
}

export interface IdempotencyStore {
  readonly kind: 'redis' | 'postgres';
  begin(key: IdempotencyKey, fingerprint: string, leaseMs: number): Promise<BeginResult>;
  /** Stores the outcome for ttl; a no-op if the lease was lost (another owner took over). */
  complete(lease: Lease, outcome: StoredOutcome): Promise<void>;
  /** Forgets the record (retryable failure) if still owned by this lease. */
  release(lease: Lease): Promise<void>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * What "the same inputs" means: sha256 of canonical JSON (object keys sorted at every depth) of the inputs and
 * the end user they act for, so key order never matters and one user cannot replay another's response.
 */
export function fingerprintOf(inputs: unknown, userId: string | null): string {
  const canonical = stringify({ v: 1, inputs: inputs ?? null, userId });
  if (canonical === undefined) throw new TypeError('idempotency inputs are not serialisable');
  return sha256(canonical);
}

/** Request ids are agent-supplied text: only this digest ever reaches a Redis key or SQL. */
export function storageKey(key: IdempotencyKey): string {
  return `idem:${sha256(`${key.customerId}\0${key.tool}\0${key.requestId}`)}`;
}

/** Lease milliseconds as a positive integer; a zero or negative lease would make every record stale at once. */
export function checkLeaseMs(leaseMs: number): number {
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new RangeError(`idempotency lease must be > 0 ms, got ${leaseMs}`);
  return Math.ceil(leaseMs);
}

export function checkTtlS(ttlS: number): number {
  if (!Number.isFinite(ttlS) || ttlS <= 0) throw new RangeError(`idempotency ttl must be > 0 s, got ${ttlS}`);
  return Math.ceil(ttlS);
}

/** Seconds a caller should wait before retrying a call still running elsewhere: whole seconds, at least 1. */
export const retryAfterSeconds = (leaseLeftMs: number): number => Math.max(1, Math.ceil(leaseLeftMs / 1000));
