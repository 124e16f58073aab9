import type { IntegrationId } from '../core/integrations';
import type { GrantReason } from '../core/provider';
import { type WorkingHours, workingHoursSchema } from '../core/working-hours';
import type { TokenCipher } from './token-cipher';

/** The integration_credentials row as the Hub sees it, and the sealing of its tokens. */

export type StoredStatus = 'connected' | 'expired';

/** What expiry_reason may hold: why an expired row stopped working, in the core's words (core/provider.ts). */
export type ExpiryReason = GrantReason;

export interface CredentialRecord {
  id: string;
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  accountEmail: string | null;
  /**
   * The vendor's stable id of the account (Microsoft: `{tid}/{oid}`), verified at connect; null when none is known.
   * Optional so that records made before it (in memory, in tests) still are records: absent reads as null.
   */
  accountId?: string | null;
  /** The scopes as the vendor granted them (Google's full URLs, Graph's short names). */
  scopes: string[];
  status: StoredStatus;
  tokenExpiresAt: Date | null;
  lastRefreshedAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Set by an admin (calendar connections); null = the default working hours. */
  workingHours: WorkingHours | null;
  /** Bumped by every write that changes the tokens; a key rotation (re-sealing only) leaves it alone. */
  tokenVersion: number;
  /** When Google issued the stored refresh token (the consent it came from); null when unknown. */
  grantedAt: Date | null;
  /** When Google said the refresh token stops working (time-based access); null = no limit was given. */
  refreshTokenExpiresAt: Date | null;
  /** Why an expired row stopped working; null while connected (or expired before the Hub kept reasons). */
  expiryReason: ExpiryReason | null;
  createdAt: Date;
  updatedAt: Date;
  /** Sealed tokens; only `openTokens` turns them into strings, and only when a tool is about to use them. */
  sealed: { keyId: string; access: Buffer | null; refresh: Buffer | null };
}

export interface OpenTokens {
  accessToken: string | null;
  refreshToken: string | null;
}

export interface Row {
  id: string;
  customer_id: string;
  user_id: string | null;
  integration: IntegrationId;
  account_email: string | null;
  account_id: string | null;
  scopes: string[];
  status: StoredStatus;
  key_id: string;
  access_token_enc: Uint8Array | null;
  refresh_token_enc: Uint8Array | null;
  token_expires_at: Date | null;
  last_refreshed_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  working_hours: unknown;
  token_version: number;
  granted_at: Date | null;
  refresh_token_expires_at: Date | null;
  expiry_reason: ExpiryReason | null;
  created_at: Date;
  updated_at: Date;
}

export const COLUMNS = `id, customer_id, user_id, integration, account_email, account_id, scopes, status, key_id, access_token_enc,
  refresh_token_enc, token_expires_at, last_refreshed_at, last_error, last_error_at, working_hours, token_version, granted_at,
  refresh_token_expires_at, expiry_reason, created_at, updated_at`;

/** Both drivers hand jsonb over parsed. Only what the schema accepts is used; a hand-edited row falls back to the default. */
const workingHoursOf = (raw: unknown): WorkingHours | null => {
  if (raw === null || raw === undefined) return null;
  const parsed = workingHoursSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
};

// node-postgres returns bytea as Buffer, PGlite as Uint8Array.
const toBuffer = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

export const toRecord = (r: Row): CredentialRecord => ({
  id: r.id,
  customerId: r.customer_id,
  userId: r.user_id,
  integration: r.integration,
  accountEmail: r.account_email,
  accountId: r.account_id ?? null,
  scopes: r.scopes,
  status: r.status,
  tokenExpiresAt: r.token_expires_at,
  lastRefreshedAt: r.last_refreshed_at,
  lastError: r.last_error,
  lastErrorAt: r.last_error_at,
  workingHours: workingHoursOf(r.working_hours),
  tokenVersion: Number(r.token_version),
  grantedAt: r.granted_at,
  refreshTokenExpiresAt: r.refresh_token_expires_at,
  expiryReason: r.expiry_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  sealed: { keyId: r.key_id, access: toBuffer(r.access_token_enc), refresh: toBuffer(r.refresh_token_enc) },
});

export type Identity = Pick<CredentialRecord, 'customerId' | 'userId' | 'integration'>;

/** Binds a ciphertext to its row and field, so it cannot be replayed into another row or swapped between fields. */
const aad = (id: Identity, field: 'access_token' | 'refresh_token') =>
  JSON.stringify(['hub-token-v1', id.customerId.toLowerCase(), id.userId, id.integration, field]);

export interface Sealer {
  /** Opens a row's tokens; throws DecryptionError for a tampered, misplaced or unknown-key blob. */
  open(record: CredentialRecord): OpenTokens;
  /** Seals tokens for a row identity under the current key. */
  seal(id: Identity, tokens: OpenTokens): { keyId: string; access: Buffer | null; refresh: Buffer | null };
}

export function createSealer(cipher: TokenCipher): Sealer {
  return {
    open: (record) => ({
      accessToken: record.sealed.access && cipher.decrypt(record.sealed.keyId, record.sealed.access, aad(record, 'access_token')),
      refreshToken: record.sealed.refresh && cipher.decrypt(record.sealed.keyId, record.sealed.refresh, aad(record, 'refresh_token')),
    }),
    seal: (id, tokens) => ({
      keyId: cipher.currentKeyId,
      access: tokens.accessToken === null ? null : cipher.encrypt(tokens.accessToken, aad(id, 'access_token')),
      refresh: tokens.refreshToken === null ? null : cipher.encrypt(tokens.refreshToken, aad(id, 'refresh_token')),
    }),
  };
}
