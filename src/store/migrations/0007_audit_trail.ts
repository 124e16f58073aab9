/**
 * The audit trail (src/audit) and the webhook outbox (src/webhooks).
 *
 * - audit_receipts: one row per authenticated execute call (its envelope). `id` orders rows for keyset
 *   pagination (newest first: started_at DESC, id DESC); `call_id` is the deterministic hash of the call, shared
 *   by a retry and its idempotent replay, so it is not unique. Payloads are stored per HUB_AUDIT_PAYLOADS and
 *   never hold a token. trace_id stays NULL until tracing fills it.
 * - audit_connection_events: connected, reconnected, expired, disconnected, working hours changed; `actor` is the
 *   admin token's `sub` when a person did it.
 * - webhook_endpoints: a customer's own receiver. Its signing secret is derived from the Hub's `webhook-key`
 *   (hub_secrets, re-sealed by rotate-keys) and the row's random nonce; a rotation draws a new nonce and keeps the
 *   previous one signing until previous_until.
 * - webhook_outbox: one row per (event, target) to deliver, at least once; webhook_attempts: the delivery log.
 * Every table is purged after HUB_AUDIT_RETENTION_DAYS in small batches, hence the time indexes.
 */
export default `
CREATE TABLE audit_receipts (
  id              bigserial   PRIMARY KEY,
  call_id         text        NOT NULL,
  tool            text        NULL,
  version         text        NULL,
  customer_id     uuid        NULL,
  user_id         text        NULL,
  agent_id        uuid        NULL,
  conversation_id text        NULL,
  request_id      text        NOT NULL,
  trace_id        text        NULL,
  started_at      timestamptz NOT NULL,
  ended_at        timestamptz NOT NULL,
  duration_ms     integer     NOT NULL,
  outcome         text        NOT NULL,
  retryable       boolean     NULL,
  api_calls       integer     NOT NULL,
  google_ops      jsonb       NOT NULL DEFAULT '[]',
  replay          boolean     NOT NULL DEFAULT false,
  payload_mode    text        NOT NULL,
  input           jsonb       NULL,
  output          jsonb       NULL,
  error           jsonb       NULL,
  -- made by the writer: a batch retried after a commit whose answer was lost does not write a receipt twice
  receipt_id      uuid        NOT NULL UNIQUE DEFAULT gen_random_uuid()
);
CREATE INDEX audit_receipts_customer_time ON audit_receipts (customer_id, started_at DESC, id DESC);
CREATE INDEX audit_receipts_conversation ON audit_receipts (customer_id, conversation_id, started_at, id) WHERE conversation_id IS NOT NULL;
CREATE INDEX audit_receipts_call_id ON audit_receipts (call_id);
CREATE INDEX audit_receipts_started_at ON audit_receipts (started_at);

CREATE TABLE audit_connection_events (
  id            bigserial   PRIMARY KEY,
  at            timestamptz NOT NULL,
  customer_id   uuid        NOT NULL,
  user_id       text        NULL,
  integration   text        NOT NULL,
  event         text        NOT NULL,
  account_email text        NULL,
  actor         text        NULL,
  details       jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_connection_events_customer_time ON audit_connection_events (customer_id, at DESC, id DESC);
CREATE INDEX audit_connection_events_at ON audit_connection_events (at);

CREATE TABLE webhook_endpoints (
  customer_id          uuid        PRIMARY KEY,
  url                  text        NOT NULL,
  secret_nonce         text        NOT NULL,
  previous_nonce       text        NULL,
  previous_until       timestamptz NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  updated_by           text        NULL
);

CREATE TABLE webhook_outbox (
  id              bigserial   PRIMARY KEY,
  event_id        uuid        NOT NULL,
  event_type      text        NOT NULL,
  customer_id     uuid        NOT NULL,
  target          text        NOT NULL CHECK (target IN ('hub', 'customer')),
  body            text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until     timestamptz NULL,
  delivered_at    timestamptz NULL,
  UNIQUE (event_id, target)
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_outbox_customer ON webhook_outbox (customer_id, created_at DESC, id DESC);
CREATE INDEX webhook_outbox_created_at ON webhook_outbox (created_at);

CREATE TABLE webhook_attempts (
  id          bigserial   PRIMARY KEY,
  outbox_id   bigint      NOT NULL REFERENCES webhook_outbox (id) ON DELETE CASCADE,
  attempt     integer     NOT NULL,
  at          timestamptz NOT NULL,
  url         text        NOT NULL,
  status      integer     NULL,
  error       text        NULL,
  duration_ms integer     NOT NULL
);
CREATE INDEX webhook_attempts_outbox ON webhook_attempts (outbox_id, attempt);
`;
