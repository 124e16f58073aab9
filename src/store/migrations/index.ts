import integrationCredentials from './0001_integration_credentials';
import idempotencyRecords from './0002_idempotency_records';
import oauthStates from './0003_oauth_states';
import workingHours from './0004_working_hours';
import singleUseLinks from './0005_single_use_links';
import tokenLifecycle from './0006_token_lifecycle';

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
];
