import type { IntegrationId } from '../integrations/integrations';
import type { Db, Queryable } from './db';
import type { TokenCipher } from './token-cipher';

/**
 * Google OAuth credentials per (customer, end user or customer-wide, integration), tokens sealed at rest.
 * Every query is keyed by the customer id the caller was authorised for; nothing here lists across customers
 * except key rotation.
 */

export type StoredStatus = 'connected' | 'expired';

export interface CredentialRecord {
  id: string;
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  accountEmail: string | null;
  /** Full scope URLs, as Google granted them. */
  scopes: string[];
  status: StoredStatus;
  tokenExpiresAt: Date | null;
  lastRefreshedAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Sealed tokens; only `openTokens` turns them into strings, and only when a tool is about to use them. */
  sealed: { keyId: string; access: Buffer | null; refresh: Buffer | null };
}

export interface CredentialInput {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  accountEmail: string | null;
  scopes: readonly string[];
  accessToken: string;
  /** `undefined` keeps the stored refresh token (Google only sends one on first consent). */
  refreshToken?: string | null;
  tokenExpiresAt: Date | null;
  lastRefreshedAt?: Date | null;
}

export interface OpenTokens {
  accessToken: string | null;
  refreshToken: string | null;
}

export interface CredentialStore {
  /** Creates or replaces the row for the input's identity; returns the stored row. */
  save(input: CredentialInput): Promise<CredentialRecord>;
  /** The end user's row when there is one, else the customer-wide row, else null. */
  resolve(customerId: string, userId: string | null, integration: IntegrationId): Promise<CredentialRecord | null>;
  /** `resolve` for every integration at once (one query). */
  resolveAll(customerId: string, userId: string | null): Promise<Map<IntegrationId, CredentialRecord>>;
  listForCustomer(customerId: string): Promise<CredentialRecord[]>;
  openTokens(record: CredentialRecord): OpenTokens;
  markExpired(id: string, reason: string): Promise<void>;
  remove(customerId: string, userId: string | null, integration: IntegrationId): Promise<boolean>;
  /** How many rows each key seals (operators check this before dropping an old key). */
  keyUsage(): Promise<{ keyId: string; rows: number }[]>;
  /** Re-seals every row not under the current key. Rows no configured key can open are reported, not touched. */
  reencryptAll(batchSize?: number): Promise<{ reencrypted: number; failed: { id: string; reason: string }[] }>;
}

interface Row {
  id: string;
  customer_id: string;
  user_id: string | null;
  integration: IntegrationId;
  account_email: string | null;
  scopes: string[];
  status: StoredStatus;
  key_id: string;
  access_token_enc: Uint8Array | null;
  refresh_token_enc: Uint8Array | null;
  token_expires_at: Date | null;
  last_refreshed_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, customer_id, user_id, integration, account_email, scopes, status, key_id, access_token_enc,
  refresh_token_enc, token_expires_at, last_refreshed_at, last_error, last_error_at, created_at, updated_at`;

// node-postgres returns bytea as Buffer, PGlite as Uint8Array.
const toBuffer = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

const toRecord = (r: Row): CredentialRecord => ({
  id: r.id,
  customerId: r.customer_id,
  userId: r.user_id,
  integration: r.integration,
  accountEmail: r.account_email,
  scopes: r.scopes,
  status: r.status,
  tokenExpiresAt: r.token_expires_at,
  lastRefreshedAt: r.last_refreshed_at,
  lastError: r.last_error,
  lastErrorAt: r.last_error_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  sealed: { keyId: r.key_id, access: toBuffer(r.access_token_enc), refresh: toBuffer(r.refresh_token_enc) },
});

type Identity = Pick<CredentialRecord, 'customerId' | 'userId' | 'integration'>;

/** Binds a ciphertext to its row and field, so it cannot be replayed into another row or swapped between fields. */
const aad = (id: Identity, field: 'access_token' | 'refresh_token') =>
  JSON.stringify(['hub-token-v1', id.customerId.toLowerCase(), id.userId, id.integration, field]);

export function createCredentialStore(db: Db, cipher: TokenCipher): CredentialStore {
  const open = (record: CredentialRecord): OpenTokens => ({
    accessToken: record.sealed.access && cipher.decrypt(record.sealed.keyId, record.sealed.access, aad(record, 'access_token')),
    refreshToken:
      record.sealed.refresh && cipher.decrypt(record.sealed.keyId, record.sealed.refresh, aad(record, 'refresh_token')),
  });
  const seal = (id: Identity, tokens: OpenTokens) => ({
    keyId: cipher.currentKeyId,
    access: tokens.accessToken === null ? null : cipher.encrypt(tokens.accessToken, aad(id, 'access_token')),
    refresh: tokens.refreshToken === null ? null : cipher.encrypt(tokens.refreshToken, aad(id, 'refresh_token')),
  });

  const findExact = async (q: Queryable, id: Identity, lock: boolean) => {
    const rows = await q.query<Row>(
      `SELECT ${COLUMNS} FROM integration_credentials
        WHERE customer_id = $1 AND integration = $2 AND coalesce(user_id, '') = coalesce($3::text, '')
        ${lock ? 'FOR UPDATE' : ''}`,
      [id.customerId, id.integration, id.userId],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  };

  return {
    save: (input) =>
      input.refreshToken !== undefined
        ? write(db, input, input.refreshToken)
        : db.transaction(async (tx) => {
            const existing = await findExact(tx, input, true);
            return write(tx, input, existing ? open(existing).refreshToken : null);
          }),

    async resolve(customerId, userId, integration) {
      const rows = await db.query<Row>(
        `SELECT ${COLUMNS} FROM integration_credentials
          WHERE customer_id = $1 AND integration = $2 AND (user_id IS NULL OR user_id = $3::text)
          ORDER BY user_id NULLS LAST LIMIT 1`,
        [customerId, integration, userId],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async resolveAll(customerId, userId) {
      const rows = await db.query<Row>(
        `SELECT DISTINCT ON (integration) ${COLUMNS} FROM integration_credentials
          WHERE customer_id = $1 AND (user_id IS NULL OR user_id = $2::text)
          ORDER BY integration, user_id NULLS LAST`,
        [customerId, userId],
      );
      return new Map(rows.map((r) => [r.integration, toRecord(r)]));
    },

    async listForCustomer(customerId) {
      const rows = await db.query<Row>(
        `SELECT ${COLUMNS} FROM integration_credentials WHERE customer_id = $1 ORDER BY integration, user_id NULLS FIRST`,
        [customerId],
      );
      return rows.map(toRecord);
    },

    openTokens: open,

    async markExpired(id, reason) {
      await db.query(
        `UPDATE integration_credentials SET status = 'expired', last_error = $2, last_error_at = now(), updated_at = now()
          WHERE id = $1`,
        [id, reason],
      );
    },

    async remove(customerId, userId, integration) {
      const rows = await db.query(
        `DELETE FROM integration_credentials
          WHERE customer_id = $1 AND integration = $2 AND coalesce(user_id, '') = coalesce($3::text, '') RETURNING id`,
        [customerId, integration, userId],
      );
      return rows.length > 0;
    },

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

  async function write(q: Queryable, input: CredentialInput, refreshToken: string | null): Promise<CredentialRecord> {
    const sealed = seal(input, { accessToken: input.accessToken, refreshToken });
    const rows = await q.query<Row>(
      `INSERT INTO integration_credentials
         (customer_id, user_id, integration, account_email, scopes, status, key_id, access_token_enc, refresh_token_enc,
          token_expires_at, last_refreshed_at)
       VALUES ($1, $2, $3, $4, $5, 'connected', $6, $7, $8, $9, $10)
       ON CONFLICT (customer_id, integration, (coalesce(user_id, ''))) DO UPDATE SET
         account_email = EXCLUDED.account_email, scopes = EXCLUDED.scopes, status = 'connected',
         key_id = EXCLUDED.key_id, access_token_enc = EXCLUDED.access_token_enc,
         refresh_token_enc = EXCLUDED.refresh_token_enc, token_expires_at = EXCLUDED.token_expires_at,
         last_refreshed_at = EXCLUDED.last_refreshed_at, last_error = NULL, last_error_at = NULL, updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        input.customerId,
        input.userId,
        input.integration,
        input.accountEmail,
        [...input.scopes],
        sealed.keyId,
        sealed.access,
        sealed.refresh,
        input.tokenExpiresAt,
        input.lastRefreshedAt ?? null,
      ],
    );
    return toRecord(rows[0]!);
  }
}
