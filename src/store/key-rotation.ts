import { COLUMNS, type OpenTokens, type Row, createSealer, toRecord } from './credential-rows';
import type { Db } from './db';
import type { TokenCipher } from './token-cipher';

export interface KeyRotation {
  /** How many rows each key seals (operators check this before dropping an old key). */
  keyUsage(): Promise<{ keyId: string; rows: number }[]>;
  /** Re-seals every row not under the current key. Rows no configured key can open are reported, not touched. */
  reencryptAll(batchSize?: number): Promise<{ reencrypted: number; failed: { id: string; reason: string }[] }>;
}

/**
 * Moving every stored token to the newest key. Runs in short transactions that skip rows another writer
 * holds, so it is safe while the Hub serves traffic, and safe to run again.
 */
export function createKeyRotation(db: Db, cipher: TokenCipher): KeyRotation {
  const { open, seal } = createSealer(cipher);
  return {
    async keyUsage() {
      const rows = await db.query<{ key_id: string; rows: number }>(
        'SELECT key_id, count(*)::int AS rows FROM integration_credentials GROUP BY key_id ORDER BY key_id',
      );
      return rows.map((r) => ({ keyId: r.key_id, rows: r.rows }));
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
  };
}
