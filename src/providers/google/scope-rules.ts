import type { Permission } from '../../core/capabilities';
import type { ScopeRules } from '../../core/provider';
import { GOOGLE_SCOPE_PREFIX, googleScope } from './catalog';
import { SCOPE_IMPLICATIONS } from './scope-implications.generated';

/**
 * How the Hub's permissions are spelled in Google's OAuth scopes (developers.google.com/identity/protocols/oauth2/scopes),
 * each the least scope that gives it, and which granted scope covers which: the implication table is derived from
 * Google's Discovery documents (scope-implications.generated.ts), not written by hand — a `calendar` grant covers
 * `calendar.events`, `gmail.modify` covers `gmail.readonly`.
 */
export const GOOGLE_SCOPE_FOR: Readonly<Record<Permission, readonly string[]>> = {
  'calendar.read': [googleScope('calendar.readonly')],
  'calendar.write': [googleScope('calendar.events')],
  'calendar.settings.read': [googleScope('calendar.settings.readonly')],
  'mail.metadata': [googleScope('gmail.metadata')],
  'mail.read': [googleScope('gmail.readonly')],
  'mail.send': [googleScope('gmail.send')],
  'mail.modify': [googleScope('gmail.modify')],
};

/** Whether Google's granted scopes (full URLs) cover `required`: the same scope, or a broader one that implies it. */
export function googleGrants(granted: readonly string[], required: string): boolean {
  return granted.some((g) => g === required || (SCOPE_IMPLICATIONS[g]?.includes(required) ?? false));
}

/** Google reports full scope URLs; the contract shows the short form ("calendar.readonly"). */
export const shortGoogleScope = (scope: string) => (scope.startsWith(GOOGLE_SCOPE_PREFIX) ? scope.slice(GOOGLE_SCOPE_PREFIX.length) : scope);

/** Whether a scope is spelled as Google spells its own (a full URL of Google's). */
export const isGoogleScope = (scope: string) => scope.startsWith(GOOGLE_SCOPE_PREFIX) || scope === 'https://mail.google.com/';

export const googleScopeRules: ScopeRules = {
  scopesFor: (permission) => GOOGLE_SCOPE_FOR[permission],
  grants: googleGrants,
  short: shortGoogleScope,
};
