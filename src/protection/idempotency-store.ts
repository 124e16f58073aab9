import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/**
 * Idempotency records for tools with side effects. `context.request_id` is the key, scoped to (customer, tool):
 * the first call with a key runs the tool; a repeat with the same inputs replays its stored outcome; a repeat
 * with other inputs is refused. A running call holds a lease (tool deadline + margin) so a replica killed
 * mid-call cannot wedge the key: once the lease has passed, a retry with the same fingerprint takes over — told
 * that an earlier attempt may have written (`earlier`), so a write that cannot be repeated safely looks first.
 * Two implementations: Redis (shared by every replica, when configured) and the database.
 */

export interface IdempotencyKey {
  customerId: string;
  tool: string;
  requestId: string;
}

/** What is replayed: opaque JSON the caller gives to complete(). */
export type StoredOutcome = Record<string, unknown>;

/**
 * An earlier attempt under this key that may have carried out the write although no outcome was stored, so the
 * new holder must look before writing again (email_send checks the Sent folder):
 * - `taken_over`: an earlier call held the key and never recorded an outcome — it died, lost its store, or
 *   could not tell whether its write happened (abandon());
 * - `store_reset`: the store itself lost its records recently (Redis restarted empty), so this key's record may
 *   have been among them.
 */
export interface EarlierAttempt {
  reason: 'taken_over' | 'store_reset';
  /** The earliest that attempt may have started (ms since the epoch, on the store's clock). */
  since: number;
}

/** What a write learns about its request_id, and how it says its outcome is uncertain. */
export interface WriteAttempt {
  /** An earlier attempt under this request_id may have carried out the write: verify before writing again. */
  readonly earlier: EarlierAttempt | null;
  /** The write may have happened although this call fails retryably: keep the record; the retry verifies first. */
  outcomeUncertain(): void;
}

export type BeginResult =
  | { state: 'acquired'; lease: Lease; earlier: EarlierAttempt | null } // run the tool, then complete(), release() or abandon()
  | { state: 'replay'; outcome: StoredOutcome } // same fingerprint, finished earlier
  | { state: 'in_progress'; retryAfterS: number } // same fingerprint, another call holds a live lease
  | { state: 'mismatch' }; // different fingerprint (running or finished)

export interface Lease {
  readonly key: string;
  readonly owner: string;
  /** Kept so complete() can re-create a record the store lost. */
  readonly fingerprint: string;
}

/** complete(): 'superseded' = nothing written, another owner took the key over (it verifies, then records). */
export type CompleteResult = 'stored' | 'superseded';

/** What a key holds as a caller with some inputs sees it: `free` = no record, an expired one, or a lease that has passed. */
export type PeekResult = Exclude<BeginResult, { state: 'acquired' }> | { state: 'free' };

/** A live record as look() reads it, before it is compared with a call's inputs; null = none (or expired). */
export type Found = { state: 'done'; fingerprint: string; outcome: StoredOutcome } | { state: 'running'; fingerprint: string; leaseLeftMs: number } | null;

/** The record against a call's fingerprint, as begin() would classify it (without acquiring anything). */
export function classifyFound(found: Found, fingerprint: string): PeekResult {
  if (found === null) return { state: 'free' };
  if (found.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (found.state === 'done') return { state: 'replay', outcome: found.outcome };
  return found.leaseLeftMs > 0 ? { state: 'in_progress', retryAfterS: retryAfterSeconds(found.leaseLeftMs) } : { state: 'free' };
}

/** An outcome to record without a lease (recordMany); the lease names key, a fresh owner and the fingerprint. */
export interface Recorded {
  lease: Lease;
  outcome: StoredOutcome;
}

export interface IdempotencyStore {
  readonly kind: 'redis' | 'postgres';
  begin(key: IdempotencyKey, fingerprint: string, leaseMs: number): Promise<BeginResult>;
  /** Stores the outcome for ttl, re-creating the record if the store lost it; never overwrites another owner. */
  complete(lease: Lease, outcome: StoredOutcome): Promise<CompleteResult>;
  /** Forgets the record (retryable failure: nothing happened) if still owned by this lease. */
  release(lease: Lease): Promise<void>;
  /**
   * The write may have happened although the call failed: keep the record (same fingerprint only) but end the
   * lease now, so the next attempt takes over at once with `earlier` set and verifies before writing.
   */
  abandon(lease: Lease): Promise<void>;
  /**
   * For writes that Google itself deduplicates (idempotency.ts, `deduplicatedUpstream`): what the key holds,
   * read without writing anything (classifyFound() compares it with a call's inputs).
   */
  look(key: IdempotencyKey): Promise<Found>;
  /**
   * Stores finished outcomes that were run without a lease, in one round trip: each is written unless its key
   * holds a live record (a finished one, or a lease still running) — that one is left as it is. Resolves to the
   * storage keys written.
   */
  recordMany(entries: readonly Recorded[]): Promise<Set<string>>;
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
