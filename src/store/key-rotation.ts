import { COLUMNS, type OpenTokens, type Row, createSealer, toRecord } from './credential-rows';
import type { Db, Queryable } from './db';
import { sealNew, secretAad } from './hub-secrets';
import { DecryptionError, type TokenCipher } from './token-cipher';

/**
 * The associated data a pending connect attempt's PKCE verifier is sealed with (oauth_states.code_verifier_enc):
 * its state's digest, so a blob cannot be moved to another attempt. Stated here, in the store that re-seals it,
 * as hub-secrets.ts states its own: src/integrations/oauth-states.ts seals with the same (its stateAad), which
 * test/unit/store-vocabulary.test.ts checks, and test/store/key-rotation.test.ts opens a re-sealed attempt.
 */
export const pendingConnectAad = (stateHash: Buffer) => `hub-pkce-v1:${stateHash.toString('hex')}`;

/** Pending connect attempts (oauth_states) sealed by one key, and when the last of them lapses. */
export interface PendingUsage {
  keyId: string;
  rows: number;
  lastExpiresAt: Date;
}

export interface KeyRotation {
  /** How many credential rows each key seals (operators check this before dropping an old key). */
  keyUsage(): Promise<{ keyId: string; rows: number }[]>;
  /** The other sealed data: live connect attempts (PKCE verifiers) and the Hub's own secrets, per key. */
  otherUsage(): Promise<{ pendingConnects: PendingUsage[]; secrets: { keyId: string; rows: number }[] }>;
  /** Re-seals every credential row not under the current key. Rows no configured key can open are reported, not touched. */
  reencryptAll(batchSize?: number): Promise<{ reencrypted: number; failed: { id: string; reason: string }[] }>;
  /**
   * Re-seals the live connect attempts and the Hub's secrets not under the current key. Ones no configured key
   * opens are left alone (attempts lapse within 10 minutes) — unless `replaceUnreadableSecrets`: then such a
   * secret gets fresh bytes (the calendar event ids of creates in flight change with it).
   */
  resealOther(options?: {
    batchSize?: number;
    replaceUnreadableSecrets?: boolean;
  }): Promise<{ pendingConnects: number; secrets: number; replacedSecrets: number }>;
}

/**
 * Moving everything sealed to the newest key. Runs in short transactions that skip rows another writer
 * holds, so it is safe while the Hub serves traffic, and safe to run again.
 */
export function createKeyRotation(db: Db, cipher: TokenCipher, now: () => number = Date.now): KeyRotation {
  const { open, seal } = createSealer(cipher);

  /**
   * One small table's blobs, re-sealed under the current key in batches: `select` returns rows not yet under it
   * (skipping `skip`, the ones no key opens); `aadOf` rebuilds a row's associated data; `update` writes one.
   */
  async function reseal<R extends { key_id: string; blob: Uint8Array; ref: string }>(
    select: (tx: Queryable, skip: string[], limit: number) => Promise<R[]>,
    aadOf: (row: R) => string,
    update: (tx: Queryable, row: R, sealed: Buffer) => Promise<unknown>,
    batchSize: number,
  ): Promise<number> {
    const skip: string[] = [];
    let done = 0;
    for (;;) {
      const more = await db.transaction(async (tx) => {
        const rows = await select(tx, skip, batchSize);
        for (const row of rows) {
          let plain: string;
          try {
            plain = cipher.decrypt(row.key_id, row.blob, aadOf(row));
          } catch (err) {
            if (!(err instanceof DecryptionError)) throw err;
            skip.push(row.ref);
            continue;
          }
          await update(tx, row, cipher.encrypt(plain, aadOf(row)));
          done++;
        }
        return rows.length === batchSize;
      });
      if (!more) return done;
    }
  }

  return {
    async keyUsage() {
      const rows = await db.query<{ key_id: string; rows: number }>(
        'SELECT key_id, count(*)::int AS rows FROM integration_credentials GROUP BY key_id ORDER BY key_id',
      );
      return rows.map((r) => ({ keyId: r.key_id, rows: r.rows }));
    },

    async otherUsage() {
      const pending = await db.query<{ key_id: string; rows: number; last: Date }>(
        `SELECT key_id, count(*)::int AS rows, max(expires_at) AS last FROM oauth_states
          WHERE expires_at > $1 GROUP BY key_id ORDER BY key_id`,
        [new Date(now())],
      );
      const secrets = await db.query<{ key_id: string; rows: number }>('SELECT key_id, count(*)::int AS rows FROM hub_secrets GROUP BY key_id ORDER BY key_id');
      return {
        pendingConnects: pending.map((r) => ({ keyId: r.key_id, rows: r.rows, lastExpiresAt: r.last })),
        secrets: secrets.map((r) => ({ keyId: r.key_id, rows: r.rows })),
      };
    },

    async reencryptAll(batchSize = 100) {
      const failed: { id: string; reason: string }[] = [];
      let reencrypted = 0;
      for (;;) {
        const done = await db.transaction(async (tx) => {
          const rows = await tx.query<Row>(
            `SELECT ${COLUMNS} FROM integration_credentials
              WHERE key_id <> $1 AND NOT (id = ANY($2::uuid[]))
              ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`,
            [cipher.currentKeyId, failed.map((f) => f.id), batchSize],
          );
          for (const row of rows.map(toRecord)) {
            let tokens: OpenTokens;
            try {
              tokens = open(row);
            } catch (err) {
              failed.push({ id: row.id, reason: (err as Error).message });
              continue;
            }
            const sealed = seal(row, tokens);
            await tx.query(
              `UPDATE integration_credentials SET key_id = $2, access_token_enc = $3, refresh_token_enc = $4, updated_at = now()
                WHERE id = $1`,
              [row.id, sealed.keyId, sealed.access, sealed.refresh],
            );
            reencrypted++;
          }
          return rows.length < batchSize;
        });
        if (done) return { reencrypted, failed };
      }
    },

    async resealOther({ batchSize = 100, replaceUnreadableSecrets = false } = {}) {
      // A person may be between the Hub and Google right now: their attempt's verifier moves to the new key too.
      const pendingConnects = await reseal(
        (tx, skip, limit) =>
          tx.query<{ key_id: string; blob: Uint8Array; ref: string; state_hash: Uint8Array }>(
            `SELECT key_id, code_verifier_enc AS blob, encode(state_hash, 'hex') AS ref, state_hash FROM oauth_states
              WHERE key_id <> $1 AND expires_at > $2 AND NOT (encode(state_hash, 'hex') = ANY($3::text[]))
              LIMIT $4 FOR UPDATE SKIP LOCKED`,
            [cipher.currentKeyId, new Date(now()), skip, limit],
          ),
        (row) => pendingConnectAad(Buffer.from(row.ref, 'hex')),
        (tx, row, sealed) =>
          tx.query('UPDATE oauth_states SET key_id = $2, code_verifier_enc = $3 WHERE state_hash = $1', [row.state_hash, cipher.currentKeyId, sealed]),
        batchSize,
      );
      const secrets = await reseal(
        (tx, skip, limit) =>
          tx.query<{ key_id: string; blob: Uint8Array; ref: string }>(
            `SELECT key_id, secret_enc AS blob, name AS ref FROM hub_secrets
              WHERE key_id <> $1 AND NOT (name = ANY($2::text[])) LIMIT $3 FOR UPDATE SKIP LOCKED`,
            [cipher.currentKeyId, skip, limit],
          ),
        (row) => secretAad(row.ref),
        (tx, row, sealed) => tx.query('UPDATE hub_secrets SET key_id = $2, secret_enc = $3 WHERE name = $1', [row.ref, cipher.currentKeyId, sealed]),
        batchSize,
      );
      let replacedSecrets = 0;
      if (replaceUnreadableSecrets) {
        const unreadable = await db.query<{ name: string }>('SELECT name FROM hub_secrets WHERE key_id <> $1', [cipher.currentKeyId]);
        for (const { name } of unreadable) {
          await db.query('UPDATE hub_secrets SET key_id = $2, secret_enc = $3, created_at = now() WHERE name = $1', [
            name,
            cipher.currentKeyId,
            sealNew(cipher, name),
          ]);
          replacedSecrets++;
        }
      }
      return { pendingConnects, secrets, replacedSecrets };
    },
  };
}
