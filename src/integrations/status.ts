import type { CredentialRecord } from '../store/credential-store';
import type { ToolRegistry } from '../tools/registry';
import { type GrantPolicy, type GrantView, grantHealth } from './grant-health';
import { INTEGRATIONS, shortScope } from './catalog';
import { INTEGRATION_IDS, type IntegrationId } from '../core/integrations';
import { CAPABILITIES, type Capability, type ProviderId } from '../core/capabilities';
import type { ChoiceReason } from '../core/provider-choice';
import { resolveCapability } from './provider-resolution';
import { missingScopes } from './scopes';
import type { SetupUrlFor } from './setup-url';

export type ConnectionStatus = 'connected' | 'expired' | 'insufficient_scopes' | 'not_connected';

export interface IntegrationStatus {
  connected: boolean;
  status: ConnectionStatus;
  /** Which connection answers for this caller: the end user's own, or the customer-wide one. */
  source?: 'user' | 'customer';
  scopes?: string[];
  email?: string | null;
  /** The current access token's expiry (the Hub refreshes it by itself): the contract's field, unchanged. */
  expires_at?: string | null;
  last_refreshed_at?: string | null;
  /** The grant behind it (the refresh token): when it ends, and whether someone must act soon. */
  grant?: GrantView;
  tools_available: string[];
  setup_url?: string;
}

export const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export interface ConnectionState {
  /** Whether tools can run with it. */
  connected: boolean;
  status: Exclude<ConnectionStatus, 'not_connected'>;
  /** Requested scopes (full URLs) the grant lacks. */
  missingScopes: string[];
  /** Tools whose required scopes the grant covers, by name; none while it is not usable. */
  toolsAvailable: string[];
}

/**
 * What one stored connection is worth: `expired` when Google no longer honours it, `insufficient_scopes` when
 * it lacks any scope the integration asks for (still usable, with fewer tools), else `connected`. The status
 * endpoint and the admin API both answer from this, so they cannot disagree.
 */
export function connectionState(record: CredentialRecord, tools: ToolRegistry): ConnectionState {
  const usable = record.status === 'connected';
  const missing = missingScopes(record.scopes, INTEGRATIONS[record.integration].scopes, record.integration);
  return {
    connected: usable,
    status: !usable ? 'expired' : missing.length === 0 ? 'connected' : 'insufficient_scopes',
    missingScopes: missing,
    toolsAvailable: usable
      ? tools
          .forIntegration(record.integration)
          .filter((t) => missingScopes(record.scopes, t.requiredScopes, record.integration).length === 0)
          .map((t) => t.name)
          .sort()
      : [],
  };
}

/**
 * The contract's status view of each integration for a customer (and optionally one end user). `connected`
 * means tools can run with it; `insufficient_scopes` is still connected, with fewer tools than it could have.
 */
export function describeIntegrations(
  records: ReadonlyMap<IntegrationId, CredentialRecord>,
  caller: { customerId: string; userId: string | null },
  tools: ToolRegistry,
  setupUrlFor: SetupUrlFor,
  grants: GrantPolicy,
): Record<IntegrationId, IntegrationStatus> {
  const out = {} as Record<IntegrationId, IntegrationStatus>;
  for (const integration of INTEGRATION_IDS) {
    const record = records.get(integration);
    const setup_url = setupUrlFor({ ...caller, integration });
    if (!record) {
      out[integration] = { connected: false, status: 'not_connected', tools_available: [], setup_url };
      continue;
    }
    const state = connectionState(record, tools);
    const grant = grantHealth(record, grants);
    out[integration] = {
      connected: state.connected,
      status: state.status,
      source: record.userId === null ? 'customer' : 'user',
      scopes: record.scopes.map(shortScope),
      email: record.accountEmail,
      expires_at: iso(record.tokenExpiresAt),
      last_refreshed_at: iso(record.lastRefreshedAt),
      grant,
      tools_available: state.toolsAvailable,
      // A link whenever a person should act: not connected as asked, or the grant ends soon (reconnecting renews it).
      ...(state.status === 'connected' && grant.health === 'ok' ? {} : { setup_url }),
    };
  }
  return out;
}

/** Which connection a capability's calls reach for this caller now (no pin), and by which rule; null when none would. */
export interface CapabilityResolution {
  resolves_to: { provider: ProviderId; integration: IntegrationId; reason: ChoiceReason; source: 'user' | 'customer' } | null;
}

/**
 * Per capability, what a call without a pin resolves to — through the very rule a tool call follows
 * (provider-resolution.ts), so the status cannot promise one provider while calls reach the other.
 */
export async function describeCapabilities(
  records: ReadonlyMap<IntegrationId, CredentialRecord>,
  defaultOf: (capability: Capability) => Promise<ProviderId | null>,
): Promise<Record<Capability, CapabilityResolution>> {
  const out = {} as Record<Capability, CapabilityResolution>;
  for (const capability of CAPABILITIES) {
    const resolution = await resolveCapability({
      capability,
      pin: null,
      rows: async (integrations) => new Map(integrations.flatMap((i) => (records.has(i) ? [[i, { record: records.get(i)! }] as const] : []))),
      defaultProvider: () => defaultOf(capability),
    });
    out[capability] = {
      resolves_to:
        resolution.kind === 'connected'
          ? {
              provider: INTEGRATIONS[resolution.found.integration].provider,
              integration: resolution.found.integration,
              reason: resolution.reason,
              source: resolution.found.entry.record.userId === null ? 'customer' : 'user',
            }
          : null,
    };
  }
  return out;
}
