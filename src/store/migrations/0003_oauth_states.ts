/**
 * One row per connect attempt in flight: the OAuth `state` the Hub sent to Google, bound to the connect link
 * that started it and to the browser (a cookie nonce), with the PKCE verifier sealed like a token. Only a
 * SHA-256 digest of the state is stored, so a read of this table cannot complete anyone's flow. A row is
 * consumed (deleted) by the first callback that presents its state; unconsumed rows expire after 10 minutes
 * and are purged by later inserts.
 */
export default `
CREATE TABLE oauth_states (
  state_hash        bytea       PRIMARY KEY,
  browser_hash      bytea       NOT NULL,
  link_id           uuid        NOT NULL,
  customer_id       uuid        NOT NULL,
  user_id           text        NULL,
  integration       text        NOT NULL CHECK (integration IN ('google_calendar', 'google_gmail')),
  return_url        text        NULL,
  key_id            text        NOT NULL,
  code_verifier_enc bytea       NOT NULL,
  expires_at        timestamptz NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX oauth_states_expires_at ON oauth_states (expires_at);
`;
