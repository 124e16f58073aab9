import { SCOPE_IMPLICATIONS } from './scope-implications.generated';

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
