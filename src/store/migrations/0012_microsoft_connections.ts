/**
 * Microsoft 365 beside Google:
 * - the integration ids `outlook_calendar` and `outlook_mail` join Google's in the two CHECKs that list them
 *   (integration_credentials from 0001, oauth_states from 0003; the other tables holding an integration id —
 *   connect_completions, audit_connection_events — never listed them). The constraints carry PostgreSQL's default
 *   names (`<table>_<column>_check`), the same on PGlite.
 * - capability_defaults: which provider answers a capability for a customer when both are connected (the first one
 *   connected, changeable through the admin API). A customer has no row of its own in the Hub (its id is what its
 *   rows carry, as customer_names says), so like every per-customer table this one has no foreign key: what removes
 *   a customer's connections removes its defaults too.
 */
export default `
ALTER TABLE integration_credentials DROP CONSTRAINT integration_credentials_integration_check;
ALTER TABLE integration_credentials ADD CONSTRAINT integration_credentials_integration_check
  CHECK (integration IN ('google_calendar', 'google_gmail', 'outlook_calendar', 'outlook_mail'));

ALTER TABLE oauth_states DROP CONSTRAINT oauth_states_integration_check;
ALTER TABLE oauth_states ADD CONSTRAINT oauth_states_integration_check
  CHECK (integration IN ('google_calendar', 'google_gmail', 'outlook_calendar', 'outlook_mail'));

CREATE TABLE capability_defaults (
  customer_id uuid        NOT NULL,
  capability  text        NOT NULL CHECK (capability IN ('calendar', 'mail')),
  provider    text        NOT NULL CHECK (provider IN ('google', 'microsoft')),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, capability)
);
`;
