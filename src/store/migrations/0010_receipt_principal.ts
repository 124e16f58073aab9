/**
 * Every receipt names the credential that made the call: `principal` is `key:<service key id>` or
 * `secret:<fingerprint>` (the first 12 hex digits of a HUB_SERVICE_SECRETS secret's SHA-256). Rows written before
 * this migration have none. A call a key made for a customer outside its scope is recorded with no customer at
 * all — never in the named customer's trail — and found by its credential through the partial index.
 */
export default `
ALTER TABLE audit_receipts ADD COLUMN principal text NULL;
CREATE INDEX audit_receipts_principal_unattributed ON audit_receipts (principal, started_at DESC, id DESC) WHERE customer_id IS NULL;
`;
