import { type HubError, hubError } from '../core/errors';
import { INTEGRATIONS, shortScope } from './catalog';
import { type IntegrationId } from '../core/integrations';
import { SCOPE_IMPLICATIONS } from '../providers/google/scope-implications.generated';

/**
 * Whether a set of granted scopes covers a required one: either granted as such, or implied by a broader
 * granted scope (a `calendar` grant covers `calendar.events`; `gmail.modify` covers `gmail.readonly`). The
 * implication table is derived from Google's Discovery documents, not written by hand.
 */
export function grants(granted: readonly string[], required: string): boolean {
  return granted.some((g) => g === required || (SCOPE_IMPLICATIONS[g]?.includes(required) ?? false));
}

export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !grants(granted, scope));
}

/**
 * INTEGRATION_PERMISSION_DENIED when `granted` does not cover `required` — what was required, granted and is
 * missing (short form) and where a person reconnects — else null. The one answer for a missing scope, whether
 * the connection check finds it before a tool runs or a tool finds it for an input that needs more.
 */
export function missingScopesError(args: {
  integration: IntegrationId;
  granted: readonly string[];
  required: readonly string[];
  /** Completes "… was connected without the permissions …", e.g. "email_send needs". */
  what: string;
  setupUrl: () => string;
}): HubError | null {
  const missing = missingScopes(args.granted, args.required);
  if (missing.length === 0) return null;
  return hubError('INTEGRATION_PERMISSION_DENIED', `${INTEGRATIONS[args.integration].displayName} was connected without the permissions ${args.what}`, {
    details: {
      integration: args.integration,
      required_scopes: args.required.map(shortScope),
      granted_scopes: args.granted.map(shortScope),
      missing_scopes: missing.map(shortScope),
      setup_url: args.setupUrl(),
    },
  });
}
