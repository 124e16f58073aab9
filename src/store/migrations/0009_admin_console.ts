/**
 * The admin console's sign-in: one-time sign-in links and server-side sessions.
 *
 * - admin_sign_in_uses: one row per sign-in link that was used (SHA-256 of its jti), kept until the link would
 *   have expired anyway; a link whose row exists opens nothing.
 * - admin_sessions: one row per browser session, keyed by the SHA-256 of the cookie's value (the value itself is
 *   never stored); `expires_at` is the absolute end, `last_seen_at` the idle clock.
 */
export default `
CREATE TABLE admin_sign_in_uses (
  link_hash  bytea       PRIMARY KEY,
  used_at    timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX admin_sign_in_uses_expires_at ON admin_sign_in_uses (expires_at);

CREATE TABLE admin_sessions (
  id_hash      bytea       PRIMARY KEY,
  principal    text        NOT NULL CHECK (principal IN ('admin', 'customer')),
  customer_id  uuid        NULL CHECK ((principal = 'customer') = (customer_id IS NOT NULL)),
  method       text        NOT NULL,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX admin_sessions_expires_at ON admin_sessions (expires_at);
`;
