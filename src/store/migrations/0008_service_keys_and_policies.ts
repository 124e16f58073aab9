/**
 * Scoped service keys and per-customer / per-agent policies (src/access).
 *
 * - hub_service_keys: only the SHA-256 of a key is stored (keys are 256 random bits, so a fast hash is enough: no
 *   dictionary to attack). customer_ids NULL = every customer; agent_id / tools NULL = no restriction. A revoked
 *   key keeps its row (revoked_at) so the admin API can still say what it was and when it last worked.
 * - hub_policies: one row per customer (agent_id NULL) and per (customer, agent). `etag` changes with every write,
 *   so If-Match detects an overwrite even across a delete and re-create.
 */
export default `
CREATE TABLE hub_service_keys (
  id            uuid        PRIMARY KEY,
  name          text        NOT NULL,
  key_hash      bytea       NOT NULL UNIQUE,
  customer_ids  uuid[]      NULL,
  agent_id      uuid        NULL,
  tools         text[]      NULL,
  expires_at    timestamptz NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz NULL,
  revoked_at    timestamptz NULL
);

CREATE TABLE hub_policies (
  customer_id   uuid        NOT NULL,
  agent_id      uuid        NULL,
  rules         jsonb       NOT NULL,
  etag          text        NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX hub_policies_customer ON hub_policies (customer_id) WHERE agent_id IS NULL;
CREATE UNIQUE INDEX hub_policies_agent ON hub_policies (customer_id, agent_id) WHERE agent_id IS NOT NULL;
`;
