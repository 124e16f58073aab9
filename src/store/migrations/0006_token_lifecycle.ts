/**
 * What the Hub knows about a connection's grant beyond its tokens (src/integrations/grant-health.ts):
 *
 * - token_version: bumped by every write that changes the tokens (connect, refresh), never by a key rotation
 *   (which only re-seals them). A refresh compares it, not the sealed blobs, to tell "someone refreshed" from
 *   "someone re-sealed the same token".
 * - granted_at: when Google issued the stored refresh token (the consent). Existing rows get created_at, the
 *   earliest it can have been — never a later date than the truth, so Testing-mode expiry is not overestimated.
 * - refresh_token_expires_at: Google's `refresh_token_expires_in` (time-based access), when it sent one.
 * - expiry_reason: why an expired row stopped working, as far as Google said (see ExpiryReason).
 */
export default `
ALTER TABLE integration_credentials
  ADD COLUMN token_version            integer     NOT NULL DEFAULT 1,
  ADD COLUMN granted_at               timestamptz NULL,
  ADD COLUMN refresh_token_expires_at timestamptz NULL,
  ADD COLUMN expiry_reason            text        NULL;

UPDATE integration_credentials SET granted_at = created_at WHERE refresh_token_enc IS NOT NULL;
`;
