/**
 * One row per connected Google integration, either customer-wide (user_id NULL) or for one end user of that
 * customer. Tokens are AES-256-GCM blobs (see token-cipher.ts); key_id names the key that sealed both of them.
 */
export default `
CREATE TABLE integration_credentials (
  id                uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
  customer_id       uuid        NOT NULL,
  user_id           text        NULL CHECK (user_id IS NULL OR length(user_id) BETWEEN 1 AND 255),
  integration       text        NOT NULL CHECK (integration IN ('google_calendar', 'google_gmail')),
  account_email     text        NULL,
  scopes            text[]      NOT NULL DEFAULT '{}',
  status            text        NOT NULL CHECK (status IN ('connected', 'expired')),
  key_id            text        NOT NULL,
  access_token_enc  bytea       NULL,
  refresh_token_enc bytea       NULL,
  token_expires_at  timestamptz NULL,
  last_refreshed_at timestamptz NULL,
  last_error        text        NULL,
  last_error_at     timestamptz NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- At most one customer-wide row and one row per end user, per integration.
CREATE UNIQUE INDEX integration_credentials_identity
  ON integration_credentials (customer_id, integration, (coalesce(user_id, '')));

-- Key rotation scans for rows still sealed by an older key.
CREATE INDEX integration_credentials_key_id ON integration_credentials (key_id);
`;
