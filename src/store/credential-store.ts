import type { IntegrationId } from '../core/integrations';
import type { WorkingHours } from '../core/working-hours';
import { COLUMNS, type CredentialRecord, type ExpiryReason, type Identity, type OpenTokens, type Row, createSealer, toRecord } from './credential-rows';
import type { Db, Queryable } from './db';
import type { TokenCipher } from './token-cipher';

export type { CredentialRecord, ExpiryReason, OpenTokens, StoredStatus } from './credential-rows';

/**
 * OAuth credentials per (customer, end user or customer-wide, integration), of every provider, tokens sealed at rest.
 * Every query is keyed by the customer id the caller was authorised for; nothing here lists across customers
 * (key rotation, which does, lives in key-rotation.ts).
 */

export interface CredentialInput {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  accountEmail: string | null;
  /** The vendor's stable id of the account, verified (Microsoft: `{tid}/{oid}`); absent or null when none. */
  accountId?: string | null;
  scopes: readonly string[];
  accessToken: string;
  /** `undefined` keeps the stored refresh token (Google only sends one on first consent). */
  refreshToken?: string | null;
  tokenExpiresAt: Date | null;
  lastRefreshedAt?: Date | null;
  /** With a new refresh token: when Google issued it (default now). Ignored when the stored one is kept. */
  grantedAt?: Date;
  /** With a new refresh token: Google's `refresh_token_expires_in` as a date, when it sent one. */
  refreshTokenExpiresAt?: Date | null;
}

export interface RefreshedTokens {
  accessToken: string;
  /** Only when Google rotated it; else the stored one is kept (re-sealed). */
  refreshToken?: string;
  expiresAt: Date | null;
  /** The scopes Google says the token carries, when it says. */
  scopes?: readonly string[];
  /** When Google says the refresh token stops working (time-based access); else the stored date is kept. */
  refreshTokenExpiresAt?: Date;
}

/**
 * What else a connection change commits with — its audit record and webhook outbox rows (OnConnectionEvent.record)
 * — written with the change's own transaction, and only when the change did change a row (`result`: what the
 * write answers).
 */
export type CommittedWith<T = unknown> = (tx: Queryable, result: T) => Promise<void>;

export interface CredentialStore {
  /** Creates or replaces the row for the input's identity; returns the stored row. */
  save(input: CredentialInput, also?: CommittedWith<CredentialRecord>): Promise<CredentialRecord>;
  /** The end user's row when there is one, else the customer-wide row, else null. */
  resolve(customerId: string, userId: string | null, integration: IntegrationId): Promise<CredentialRecord | null>;
  /** `resolve` for every integration at once (one query). */
  resolveAll(customerId: string, userId: string | null): Promise<Map<IntegrationId, CredentialRecord>>;
  /**
   * Whether another connection holds a grant of the same Google account (same email). Google revokes per
   * account and OAuth client, not per integration or customer, so revoking this row's grant would kill those.
   * `among`: only connections of these integrations count (the same vendor's).
   */
  accountInUseElsewhere(record: CredentialRecord, among?: readonly IntegrationId[]): Promise<boolean>;
  /** Exactly the row for (customer, user — or customer-wide when null —, integration): no fallback. */
  findExact(customerId: string, userId: string | null, integration: IntegrationId): Promise<CredentialRecord | null>;
  listForCustomer(customerId: string): Promise<CredentialRecord[]>;
  openTokens(record: CredentialRecord): OpenTokens;
  /** Only the access token (the refresh token stays sealed): what a tool call needs. */
  openAccessToken(record: CredentialRecord): string | null;
  /** One row by id — an id taken from a row already resolved for an authorised caller — or null once it is gone. */
  getById(id: string): Promise<CredentialRecord | null>;
  /**
   * Persists a refresh: tokens re-sealed under the current key, last_refreshed_at = now, status connected,
   * last_error cleared, token_version bumped. Applies only while the row still has the token_version `record`
   * was read with, so a reconnect, disconnect or concurrent refresh that wrote meanwhile wins (null then) —
   * while a key rotation that only re-sealed the same tokens does not stand in the way.
   */
  updateTokens(record: CredentialRecord, tokens: RefreshedTokens): Promise<CredentialRecord | null>;
  /**
   * `reason`: Google's words, kept in last_error; `cause`: the machine-readable why. With `ifUnchanged`: only
   * while the row still has that record's token_version (a reconnect or refresh meanwhile wins).
   */
  markExpired(id: string, reason: string, ifUnchanged?: CredentialRecord, cause?: ExpiryReason, also?: CommittedWith<boolean>): Promise<boolean>;
  remove(customerId: string, userId: string | null, integration: IntegrationId, also?: CommittedWith<boolean>): Promise<boolean>;
  /** Sets (or with null clears) the exact row's working hours; null when there is no such row. */
  setWorkingHours(
    customerId: string,
    userId: string | null,
    integration: IntegrationId,
    hours: WorkingHours | null,
    also?: CommittedWith<CredentialRecord>,
  ): Promise<CredentialRecord | null>;
}

/** The refresh token a write stores, with when Google issued it and when Google said it ends. */
interface StoredGrant {
  refreshToken: string | null;
  grantedAt: Date | null;
  expiresAt: Date | null;
}

const grantOf = (refreshToken: string | null, input: CredentialInput): StoredGrant =>
  refreshToken === null
    ? { refreshToken, grantedAt: null, expiresAt: null }
    : { refreshToken, grantedAt: input.grantedAt ?? new Date(), expiresAt: input.refreshTokenExpiresAt ?? null };

export function createCredentialStore(db: Db, cipher: TokenCipher): CredentialStore {
  const { open, seal } = createSealer(cipher);

  const lockExact = async (q: Queryable, id: Identity) => {
    const rows = await q.query<Row>(
      `SELECT ${COLUMNS} FROM integration_credentials
        WHERE customer_id = $1 AND integration = $2 AND coalesce(user_id, '') = coalesce($3::text, '')
        FOR UPDATE`,
      [id.customerId, id.integration, id.userId],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  };

  /**
   * `run` on its own; with `also`, `run` and then — when it changed a row (answered true or the row, not false or
   * null) — `also`, in one transaction.
   */
  const committedWith = <T>(also: CommittedWith<NonNullable<T>> | undefined, run: (q: Queryable) => Promise<T>): Promise<T> =>
    also === undefined
      ? run(db)
      : db.transaction(async (tx) => {
          const result = await run(tx);
          if (result) await also(tx, result);
          return result;
        });

  /** The refresh token a save stores: the input's, or — Google sent none (the account consented before) — the stored one, dates included. */
  const grantToStore = async (q: Queryable, input: CredentialInput): Promise<StoredGrant> => {
    if (input.refreshToken !== undefined) return grantOf(input.refreshToken, input);
    const existing = await lockExact(q, input);
    const kept = existing ? open(existing).refreshToken : null;
    return kept === null ? grantOf(null, input) : { refreshToken: kept, grantedAt: existing!.grantedAt, expiresAt: existing!.refreshTokenExpiresAt };
  };

  return {
    // One statement when nothing else must commit with it and no stored grant is to be read (and locked) first.
    save: (input, also) =>
      input.refreshToken !== undefined && also === undefined
        ? write(db, input, grantOf(input.refreshToken, input))
        : db.transaction(async (tx) => {
            const saved = await write(tx, input, await grantToStore(tx, input));
            await also?.(tx, saved);
            return saved;
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

    async accountInUseElsewhere(record, among) {
      if (record.accountEmail === null) return false;
      const rows = await db.query(
        `SELECT 1 FROM integration_credentials WHERE lower(account_email) = lower($1) AND id <> $2 AND status = 'connected'
            AND ($3::text[] IS NULL OR integration = ANY($3::text[])) LIMIT 1`,
        [record.accountEmail, record.id, among ? [...among] : null],
      );
      return rows.length > 0;
    },

    async findExact(customerId, userId, integration) {
      const rows = await db.query<Row>(
        `SELECT ${COLUMNS} FROM integration_credentials
          WHERE customer_id = $1 AND integration = $2 AND coalesce(user_id, '') = coalesce($3::text, '')`,
        [customerId, integration, userId],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async listForCustomer(customerId) {
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM integration_credentials WHERE customer_id = $1 ORDER BY integration, user_id NULLS FIRST`, [
        customerId,
      ]);
      return rows.map(toRecord);
    },

    openTokens: open,
    openAccessToken: (record) => open({ ...record, sealed: { ...record.sealed, refresh: null } }).accessToken,

    async getById(id) {
      const rows = await db.query<Row>(`SELECT ${COLUMNS} FROM integration_credentials WHERE id = $1`, [id]);
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async updateTokens(record, tokens) {
      // Both blobs share the row's key id, so the kept refresh token is re-sealed with the new access token.
      const refreshToken = tokens.refreshToken ?? open(record).refreshToken;
      const sealed = seal(record, { accessToken: tokens.accessToken, refreshToken });
      // The guard compares token_version, not the blobs (a key rotation re-seals those without changing the
      // tokens) nor updated_at (timestamps lose their microseconds on the way through a JS Date).
      const rows = await db.query<Row>(
        `UPDATE integration_credentials SET key_id = $2, access_token_enc = $3, refresh_token_enc = $4,
           token_expires_at = $5, scopes = coalesce($6::text[], scopes), status = 'connected', last_refreshed_at = now(),
           refresh_token_expires_at = coalesce($8::timestamptz, refresh_token_expires_at), token_version = token_version + 1,
           last_error = NULL, last_error_at = NULL, expiry_reason = NULL, updated_at = now()
          WHERE id = $1 AND status = 'connected' AND token_version = $7
          RETURNING ${COLUMNS}`,
        [
          record.id,
          sealed.keyId,
          sealed.access,
          sealed.refresh,
          tokens.expiresAt,
          tokens.scopes ? [...tokens.scopes] : null,
          record.tokenVersion,
          tokens.refreshTokenExpiresAt ?? null,
        ],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    markExpired: (id, reason, ifUnchanged, cause, also) =>
      committedWith(
        also,
        async (q) =>
          (
            await q.query(
              `UPDATE integration_credentials SET status = 'expired', last_error = $2, last_error_at = now(), expiry_reason = $5, updated_at = now()
                WHERE id = $1 AND ($3::boolean IS NOT TRUE OR token_version = $4) RETURNING id`,
              [id, reason, ifUnchanged !== undefined, ifUnchanged?.tokenVersion ?? 0, cause ?? null],
            )
          ).length > 0,
      ),

    remove: (customerId, userId, integration, also) =>
      committedWith(
        also,
        async (q) =>
          (
            await q.query(
              `DELETE FROM integration_credentials
                WHERE customer_id = $1 AND integration = $2 AND coalesce(user_id, '') = coalesce($3::text, '') RETURNING id`,
              [customerId, integration, userId],
            )
          ).length > 0,
      ),

    setWorkingHours: (customerId, userId, integration, hours, also) =>
      committedWith(also, async (q) => {
        const rows = await q.query<Row>(
          `UPDATE integration_credentials SET working_hours = $4::jsonb, updated_at = now()
              WHERE customer_id = $1 AND integration = $2 AND coalesce(user_id, '') = coalesce($3::text, '') RETURNING ${COLUMNS}`,
          [customerId, integration, userId, hours === null ? null : JSON.stringify(hours)],
        );
        return rows[0] ? toRecord(rows[0]) : null;
      }),
  };

  async function write(q: Queryable, input: CredentialInput, grant: StoredGrant): Promise<CredentialRecord> {
    const sealed = seal(input, { accessToken: input.accessToken, refreshToken: grant.refreshToken });
    const rows = await q.query<Row>(
      `INSERT INTO integration_credentials
         (customer_id, user_id, integration, account_email, scopes, status, key_id, access_token_enc, refresh_token_enc,
          token_expires_at, last_refreshed_at, granted_at, refresh_token_expires_at, account_id)
       VALUES ($1, $2, $3, $4, $5, 'connected', $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (customer_id, integration, (coalesce(user_id, ''))) DO UPDATE SET
         account_email = EXCLUDED.account_email, account_id = EXCLUDED.account_id, scopes = EXCLUDED.scopes, status = 'connected',
         key_id = EXCLUDED.key_id, access_token_enc = EXCLUDED.access_token_enc,
         refresh_token_enc = EXCLUDED.refresh_token_enc, token_expires_at = EXCLUDED.token_expires_at,
         last_refreshed_at = EXCLUDED.last_refreshed_at, granted_at = EXCLUDED.granted_at,
         refresh_token_expires_at = EXCLUDED.refresh_token_expires_at, token_version = integration_credentials.token_version + 1,
         last_error = NULL, last_error_at = NULL, expiry_reason = NULL, updated_at = now()
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
        grant.grantedAt,
        grant.expiresAt,
        input.accountId ?? null,
      ],
    );
    return toRecord(rows[0]!);
  }
}
