/**
 * Connect links become single-use and their attempts bounded; the Hub gets a place for secrets it generates.
 *
 * - oauth_states: the client address (digest) and the link's intent and expiry ride along with each attempt;
 *   indexes let the Hub count live attempts per link and per address before it starts another one.
 * - connect_link_uses: one row per link that connected an account (its jti), kept until the link would have
 *   expired anyway; a used link opens nothing, and attempts it started earlier cannot finish.
 * - connect_completions: a short lease per connection (customer, end user, integration) while one attempt
 *   compares the connected account with the new one and stores it, so two attempts cannot interleave.
 * - hub_secrets: random secrets the Hub generates once and keeps sealed like tokens (the calendar event-id
 *   key): stable across key rotations, re-sealed by `rotate-keys`.
 */
export default `
ALTER TABLE oauth_states ADD COLUMN client_hash bytea NULL;
ALTER TABLE oauth_states ADD COLUMN replace_account boolean NOT NULL DEFAULT false;
ALTER TABLE oauth_states ADD COLUMN link_expires_at timestamptz NULL;
CREATE INDEX oauth_states_link_id ON oauth_states (link_id);
CREATE INDEX oauth_states_client_hash ON oauth_states (client_hash);

CREATE TABLE connect_link_uses (
  link_id     uuid        PRIMARY KEY,
  customer_id uuid        NOT NULL,
  integration text        NOT NULL,
  used_at     timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX connect_link_uses_expires_at ON connect_link_uses (expires_at);

CREATE TABLE connect_completions (
  connection  text        PRIMARY KEY,
  link_id     uuid        NOT NULL,
  lease_until timestamptz NOT NULL
);

CREATE TABLE hub_secrets (
  name       text        PRIMARY KEY,
  key_id     text        NOT NULL,
  secret_enc bytea       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`;
