import type { CredentialRecord } from '../store/credential-store';
import type { ToolRegistry } from '../tools/registry';
import { type GrantPolicy, type GrantView, grantHealth } from './grant-health';
import { shortScope } from './catalog';
import { type IntegrationId } from '../core/integrations';
import type { SetupUrlFor } from './setup-url';
import { type ConnectionState, connectionState, iso } from './status';
import { type WorkingHours, workingHoursView } from '../core/working-hours';

/** One stored connection as the admin API shows it: everything about it except its tokens and key id. */
export interface ConnectionView {
  integration: IntegrationId;
  user_id: string | null;
  source: 'customer' | 'user';
  status: ConnectionState['status'];
  connected: boolean;
  account_email: string | null;
  scopes: string[];
  missing_scopes: string[];
  /** The current access token's expiry (the Hub refreshes it by itself). */
  expires_at: string | null;
  last_refreshed_at: string | null;
  /** The grant (refresh token): when it ends, its health, and why it is expiring or expired. */
  grant: GrantView;
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
  updated_at: string;
  tools_available: string[];
  /** Calendar connections only: the hours the calendar tools use, and whether an admin set them. */
  working_hours?: WorkingHours;
  working_hours_source?: 'admin' | 'default';
  /** A fresh connect link for exactly this connection, when it needs (re)connecting. */
  setup_url?: string;
}

/** Every connection of a customer, customer-wide and per end user, judged as the status endpoint judges them. */
export function describeConnections(
  records: readonly CredentialRecord[],
  tools: ToolRegistry,
  setupUrlFor: SetupUrlFor,
  grants: GrantPolicy,
): ConnectionView[] {
  return records.map((record) => {
    const state = connectionState(record, tools);
    const grant = grantHealth(record, grants);
    // Field by field on purpose: nothing reaches the answer unless named here (never `sealed`).
    return {
      integration: record.integration,
      user_id: record.userId,
      source: record.userId === null ? 'customer' : 'user',
      status: state.status,
      connected: state.connected,
      account_email: record.accountEmail,
      scopes: record.scopes.map(shortScope),
      missing_scopes: state.missingScopes.map(shortScope),
      expires_at: iso(record.tokenExpiresAt),
      last_refreshed_at: iso(record.lastRefreshedAt),
      grant,
      last_error: record.lastError,
      last_error_at: iso(record.lastErrorAt),
      created_at: record.createdAt.toISOString(),
      updated_at: record.updatedAt.toISOString(),
      tools_available: state.toolsAvailable,
      ...(record.integration === 'google_calendar' ? workingHoursView(record.workingHours) : {}),
      ...(state.status === 'connected' && grant.health === 'ok'
        ? {}
        : { setup_url: setupUrlFor({ customerId: record.customerId, userId: record.userId, integration: record.integration }) }),
    };
  });
}
