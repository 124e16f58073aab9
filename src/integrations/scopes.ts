import type { Capability, Permission, ProviderId } from '../core/capabilities';
import { type HubError, hubError } from '../core/errors';
import type { ScopeRules } from '../core/provider';
import { type IntegrationId } from '../core/integrations';
import { googleScopeRules, isGoogleScope } from '../providers/google/scope-rules';
import { microsoftScopeRules } from '../providers/microsoft/scope-rules';
import { INTEGRATIONS, OFFERED_INTEGRATIONS } from './catalog';

/**
 * A connection's scopes judged by its own provider's rules: tools declare neutral permissions
 * (src/core/capabilities.ts), each provider spells them in its scopes and says which granted scope covers which
 * (src/providers/<vendor>/scope-rules.ts). Nothing here knows a vendor's scope.
 */

export const SCOPE_RULES: Readonly<Record<ProviderId, ScopeRules>> = { google: googleScopeRules, microsoft: microsoftScopeRules };

export const rulesFor = (integration: IntegrationId): ScopeRules => SCOPE_RULES[INTEGRATIONS[integration].provider];

/** The scopes `permissions` need on `integration`, in its provider's spelling, each once. */
export function scopesFor(integration: IntegrationId, permissions: readonly Permission[]): string[] {
  const rules = rulesFor(integration);
  return [...new Set(permissions.flatMap((p) => rules.scopesFor(p)))];
}

/**
 * Whose rules judge a scope when the caller names no integration: a scope spelled as Google spells its own is
 * Google's; Graph's are bare names (`Mail.Read`) or its resource's URLs.
 */
const rulesOfScope = (scope: string): ScopeRules => (isGoogleScope(scope) ? googleScopeRules : microsoftScopeRules);

/** Whether `granted` covers `required`: granted as such, or implied by a broader granted scope of the same provider. */
export function grants(granted: readonly string[], required: string, integration?: IntegrationId): boolean {
  return (integration ? rulesFor(integration) : rulesOfScope(required)).grants(granted, required);
}

export function missingScopes(granted: readonly string[], required: readonly string[], integration?: IntegrationId): string[] {
  return required.filter((scope) => !grants(granted, scope, integration));
}

/**
 * INTEGRATION_PERMISSION_DENIED when the connection's `granted` scopes do not cover what `permissions` need on its
 * integration — what was required, granted and is missing (the provider's short form) and where a person
 * reconnects — else null. The one answer for a missing scope, whether the connection check finds it before a tool
 * runs or a tool finds it for an input that needs more.
 */
export function missingScopesError(args: {
  integration: IntegrationId;
  granted: readonly string[];
  permissions: readonly Permission[];
  /** Completes "… was connected without the permissions …", e.g. "email_send needs". */
  what: string;
  setupUrl: () => string;
}): HubError | null {
  const rules = rulesFor(args.integration);
  const required = scopesFor(args.integration, args.permissions);
  const missing = required.filter((scope) => !rules.grants(args.granted, scope));
  if (missing.length === 0) return null;
  return hubError('INTEGRATION_PERMISSION_DENIED', `${INTEGRATIONS[args.integration].displayName} was connected without the permissions ${args.what}`, {
    details: {
      integration: args.integration,
      required_scopes: required.map(rules.short),
      granted_scopes: args.granted.map(rules.short),
      missing_scopes: missing.map(rules.short),
      setup_url: args.setupUrl(),
    },
  });
}

/**
 * The contract's view of a tool of `capability`: the integration it names — the capability's first offered, which
 * is Google's, as the contract has always named it — and that integration's scopes for `permissions`. Any
 * integration of the capability may answer a call; this is only what the catalog and the generated documents show.
 */
export function contractView(
  capability: Capability | null,
  permissions: readonly Permission[],
): { integration: IntegrationId | null; requiredScopes: string[] } {
  const spec = capability === null ? undefined : OFFERED_INTEGRATIONS.find((s) => s.capability === capability);
  return spec ? { integration: spec.id, requiredScopes: scopesFor(spec.id, permissions) } : { integration: null, requiredScopes: [] };
}
