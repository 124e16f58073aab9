import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import type { Db } from '../store/db';
import { type KeyFilter, createKeyFilter } from './idempotency-key-filter';
import {
  type BeginResult,
  type IdempotencyStore,
  type Lease,
  type Found,
  type StoredOutcome,
  checkLeaseMs,
  checkTtlS,
  classifyFound,
  storageKey,
} from './idempotency-store';

/**
 * Idempotency records in the database (table idempotency_records, migration 0002), for when Redis is not
 * configured. begin() is one INSERT … ON CONFLICT that acquires a new key, takes over a stale lease with the
 * same fingerprint, or replaces an expired record; only when it acquires nothing does one SELECT classify the
 * existing record. Leases and expiry use the database clock (now()), so replicas with skewed clocks agree.
 * `created_at` is the first attempt's start: a take-over keeps it (the new holder looks back that far for an
 * earlier write); only a fresh or expired key resets it. Database errors propagate (the caller checks
 * isDatabaseUnavailable). The database does not lose committed rows, so there is no `store_reset` here.
 */

/** Expired rows are deleted opportunistically from complete(), at most this often per store, in small batches. */
const PURGE_EVERY_MS = 5 * 60_000;
const PURGE_BATCH = 500;
/** A record can vanish or go stale between the INSERT and the SELECT; begin() then simply tries again. */
const MAX_ATTEMPTS = 3;

interface ExistingRow {
  fingerprint: string;
  state: 'running' | 'done';
  outcome: StoredOutcome | null;
  expired: boolean;
  lease_left_ms: number;
}

/**
 * jsonb refuses the NUL character (\u0000 escapes), which tool outputs may contain: store U+FFFD in its place
 * rather than failing to record a side effect that already happened. Only real escapes are replaced — an odd
 * run of backslashes before "u0000" — never an escaped backslash followed by the text "u0000".
 */
const toJsonb = (outcome: StoredOutcome): string => JSON.stringify(outcome).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');

export function createPostgresIdempotencyStore(
  db: Db,
  /** soleWriter: this process alone writes the table (embedded PGlite) — look() then skips keys never written (idempotency-key-filter.ts). */
  options: { ttlS: number; soleWriter?: { logger: Logger } },
): IdempotencyStore {
  const ttlS = checkTtlS(options.ttlS);
  const known: KeyFilter | null = options.soleWriter ? createKeyFilter(db, options.soleWriter.logger) : null;
  let lastPurge = 0;

  const purgeExpired = async () => {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    await db
      .query(
        `DELETE FROM idempotency_records WHERE ctid IN (
           SELECT ctid FROM idempotency_records WHERE expires_at < now() LIMIT ${PURGE_BATCH})`,
      )
      .catch(() => {}); // housekeeping only: the next purge tries again, and expired rows are ignored meanwhile
  };

  async function attempt(key: string, fingerprint: string, leaseMs: number): Promise<BeginResult | null> {
    const owner = randomUUID();
    known?.add(key);
    // taken_over: the row was a running one whose lease had passed (its created_at is kept, so it predates now()).
    const acquired = await db.query<{ taken_over: boolean; since_ms: number }>(
      `INSERT INTO idempotency_records AS r (key, fingerprint, state, owner, outcome, lease_until, expires_at)
       VALUES ($1, $2, 'running', $3, NULL, now() + $4::float8 * interval '1 millisecond',
               now() + $4::float8 * interval '1 millisecond' + $5::float8 * interval '1 second')
       ON CONFLICT (key) DO UPDATE SET
         fingerprint = EXCLUDED.fingerprint, state = 'running', owner = EXCLUDED.owner, outcome = NULL,
         lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at,
         created_at = CASE WHEN r.expires_at <= now() THEN now() ELSE r.created_at END
       WHERE (r.state = 'running' AND r.lease_until <= now() AND r.fingerprint = EXCLUDED.fingerprint)
          OR r.expires_at <= now()
       RETURNING created_at < now() AS taken_over, (extract(epoch FROM created_at) * 1000)::float8 AS since_ms`,
      [key, fingerprint, owner, leaseMs, ttlS],
    );
    const got = acquired[0];
    if (got) {
      return { state: 'acquired', lease: { key, owner, fingerprint }, earlier: got.taken_over ? { reason: 'taken_over', since: got.since_ms } : null };
    }

    const found = classifyFound(await lookUp(key), fingerprint);
    return found.state === 'free' ? null : found; // free: the record vanished or its lease ran out since the INSERT
  }

  /** The live record under `key` (one SELECT; writes nothing). Expiry and lease on the database clock. */
  async function lookUp(key: string): Promise<Found> {
    const rows = await db.query<ExistingRow>(
      `SELECT fingerprint, state, outcome, expires_at <= now() AS expired,
              (extract(epoch FROM lease_until - now()) * 1000)::float8 AS lease_left_ms
         FROM idempotency_records WHERE key = $1`,
      [key],
    );
    const row = rows[0];
    if (!row || row.expired) return null;
    return row.state === 'done'
      ? { state: 'done', fingerprint: row.fingerprint, outcome: row.outcome ?? {} }
      : { state: 'running', fingerprint: row.fingerprint, leaseLeftMs: row.lease_left_ms };
  }

  return {
    kind: 'postgres',

    async begin(idKey, fingerprint, leaseMs) {
      const key = storageKey(idKey);
      const lease = checkLeaseMs(leaseMs);
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        const result = await attempt(key, fingerprint, lease);
        if (result) return result;
      }
      // Only reachable when the record keeps changing under us: report it as busy, which is safe to retry.
      return { state: 'in_progress', retryAfterS: 1 };
    },

    async complete(lease: Lease, outcome) {
      known?.add(lease.key);
      const json = toJsonb(outcome);
      const updated = await db.query(
        `UPDATE idempotency_records
            SET state = 'done', outcome = $3::text::jsonb, lease_until = now(),
                expires_at = now() + $4::float8 * interval '1 second'
          WHERE key = $1 AND owner = $2 AND state = 'running'
          RETURNING 1`,
        [lease.key, lease.owner, json, ttlS],
      );
      // No row of ours: the record is gone (a purge, an operator) — re-create it, since the write happened; a row
      // of another owner means the key was taken over, and that owner records what it finds.
      const stored =
        updated.length > 0 ||
        (
          await db.query(
            `INSERT INTO idempotency_records AS r (key, fingerprint, state, owner, outcome, lease_until, expires_at)
             VALUES ($1, $2, 'done', $3, $4::text::jsonb, now(), now() + $5::float8 * interval '1 second')
             ON CONFLICT (key) DO UPDATE SET
               fingerprint = EXCLUDED.fingerprint, state = 'done', owner = EXCLUDED.owner, outcome = EXCLUDED.outcome,
               lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at, created_at = now()
             WHERE r.expires_at <= now()
             RETURNING 1`,
            [lease.key, lease.fingerprint, lease.owner, json, ttlS],
          )
        ).length > 0;
      await purgeExpired();
      return stored ? 'stored' : 'superseded';
    },

    async release(lease: Lease) {
      await db.query(`DELETE FROM idempotency_records WHERE key = $1 AND owner = $2 AND state = 'running'`, [lease.key, lease.owner]);
    },

    async abandon(lease: Lease) {
      await db.query(`UPDATE idempotency_records SET lease_until = now() WHERE key = $1 AND owner = $2 AND state = 'running'`, [lease.key, lease.owner]);
    },

    async look(idKey) {
      const key = storageKey(idKey);
      return known && !known.mayHold(key) ? null : lookUp(key);
    },

    // One statement (one commit) for the whole batch: a commit is most of an insert's cost, ~1.2 ms of CPU on
    // the embedded PGlite. Keys are distinct within a batch (the guard keeps one entry per key), as ON CONFLICT
    // DO UPDATE requires.
    async recordMany(entries) {
      if (entries.length === 0) return new Set<string>();
      for (const e of entries) known?.add(e.lease.key);
      const rows = await db.query<{ key: string }>(
        `INSERT INTO idempotency_records AS r (key, fingerprint, state, owner, outcome, lease_until, expires_at)
         SELECT k, f, 'done', o::uuid, x::jsonb, now(), now() + $5::float8 * interval '1 second'
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(k, f, o, x)
         ON CONFLICT (key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, state = 'done', owner = EXCLUDED.owner, outcome = EXCLUDED.outcome,
           lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at, created_at = now()
         WHERE r.expires_at <= now()
            OR (r.state = 'running' AND r.lease_until <= now() AND r.fingerprint = EXCLUDED.fingerprint)
         RETURNING key`,
        [
          entries.map((e) => e.lease.key),
          entries.map((e) => e.lease.fingerprint),
          entries.map((e) => e.lease.owner),
          entries.map((e) => toJsonb(e.outcome)),
          ttlS,
        ],
      );
      await purgeExpired();
      return new Set(rows.map((r) => r.key));
    },
  };
}
