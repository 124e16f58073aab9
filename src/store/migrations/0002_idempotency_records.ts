/**
 * Idempotency records for tools with side effects, used when Redis is not configured (see
 * src/protection/idempotency-postgres.ts). `key` is a digest of (customer, tool, request id), never the
 * agent-supplied text. A 'running' row is a lease held by `owner` until `lease_until` (a replica that dies
 * mid-call is taken over after it); a 'done' row holds the outcome that is replayed until `expires_at`.
 * Expired rows are purged in small batches by the store, hence the index on expires_at.
 */
export default `
CREATE TABLE idempotency_records (
  key         text        PRIMARY KEY,
  fingerprint text        NOT NULL,
  state       text        NOT NULL CHECK (state IN ('running', 'done')),
  owner       uuid        NOT NULL,
  outcome     jsonb       NULL,
  lease_until timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX idempotency_records_expires_at ON idempotency_records (expires_at);
`;
