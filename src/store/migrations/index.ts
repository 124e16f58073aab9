import integrationCredentials from './0001_integration_credentials';
import idempotencyRecords from './0002_idempotency_records';
import oauthStates from './0003_oauth_states';
import workingHours from './0004_working_hours';
import singleUseLinks from './0005_single_use_links';
import tokenLifecycle from './0006_token_lifecycle';
import auditTrail from './0007_audit_trail';
import serviceKeysAndPolicies from './0008_service_keys_and_policies';
import adminConsole from './0009_admin_console';
import receiptPrincipal from './0010_receipt_principal';
import customerNames from './0011_customer_names';
import microsoftConnections from './0012_microsoft_connections';
import connectionAccountId from './0013_connection_account_id';
import receiptIntegration from './0014_receipt_integration';

/**
 * Forward-only migrations, applied in this order at start and recorded (with a checksum) in hub_migrations.
 * Never edit one that has shipped: add the next file and a line here.
 */
export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  { name: '0001_integration_credentials', sql: integrationCredentials },
  { name: '0002_idempotency_records', sql: idempotencyRecords },
  { name: '0003_oauth_states', sql: oauthStates },
  { name: '0004_working_hours', sql: workingHours },
  { name: '0005_single_use_links', sql: singleUseLinks },
  { name: '0006_token_lifecycle', sql: tokenLifecycle },
  { name: '0007_audit_trail', sql: auditTrail },
  { name: '0008_service_keys_and_policies', sql: serviceKeysAndPolicies },
  { name: '0009_admin_console', sql: adminConsole },
  { name: '0010_receipt_principal', sql: receiptPrincipal },
  { name: '0011_customer_names', sql: customerNames },
  { name: '0012_microsoft_connections', sql: microsoftConnections },
  { name: '0013_connection_account_id', sql: connectionAccountId },
  { name: '0014_receipt_integration', sql: receiptIntegration },
];
