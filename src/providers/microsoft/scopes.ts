import type { Permission } from '../../core/capabilities';
import type { ScopeRules } from '../../core/provider';

/**
 * How the Hub's permissions are spelled in Microsoft Graph's delegated permissions, and which Graph permission
 * covers which (learn.microsoft.com/graph/permissions-reference). Graph names a scope bare (`Mail.Read`) or with
 * its resource (`https://graph.microsoft.com/Mail.Read`), and compares them case-insensitively ("scopes are
 * case-insensitive", permissions-consent-overview) — so does everything here.
 */

export const GRAPH_RESOURCE = 'https://graph.microsoft.com/';

/**
 * The OpenID Connect scopes asked next to an integration's Graph scopes: `openid` (an id_token naming the account),
 * `profile` and `email` (its claims), `offline_access` (a refresh token; without it the grant ends with the first
 * access token, about an hour — v2-oauth2-auth-code-flow). They are not Graph permissions and never count as granted ones.
 */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
const OIDC: ReadonlySet<string> = new Set(OIDC_SCOPES);

/** `https://graph.microsoft.com/Mail.Read` → `Mail.Read`; anything else as it is. */
export function shortGraphScope(scope: string): string {
  return scope.toLowerCase().startsWith(GRAPH_RESOURCE) ? scope.slice(GRAPH_RESOURCE.length) : scope;
}

/** The key two spellings of one scope share: bare and lower case. */
const key = (scope: string) => shortGraphScope(scope.trim()).toLowerCase();

export const isOidcScope = (scope: string) => OIDC.has(scope.trim().toLowerCase());

/**
 * Which granted permission covers which other (each pair from the permissions reference's descriptions):
 * `.ReadWrite` includes `.Read`; `Mail.Read` includes `Mail.ReadBasic` (which reads everything but the body and
 * attachments); a `.Shared` permission reaches the user's own items as well as those shared with them, so it covers
 * its plain counterpart; `MailboxSettings.ReadWrite` ⊇ `MailboxSettings.Read`; `User.ReadWrite`, `User.Read.All`
 * and `User.ReadWrite.All` ⊇ `User.Read`. Closed under transitivity below.
 */
const DIRECT: Readonly<Record<string, readonly string[]>> = {
  'Calendars.ReadWrite': ['Calendars.Read'],
  'Calendars.Read.Shared': ['Calendars.Read'],
  'Calendars.ReadWrite.Shared': ['Calendars.ReadWrite', 'Calendars.Read.Shared'],
  'Mail.Read': ['Mail.ReadBasic'],
  'Mail.ReadWrite': ['Mail.Read'],
  'Mail.Read.Shared': ['Mail.Read', 'Mail.ReadBasic.Shared'],
  'Mail.ReadBasic.Shared': ['Mail.ReadBasic'],
  'Mail.ReadWrite.Shared': ['Mail.ReadWrite', 'Mail.Read.Shared'],
  'Mail.Send.Shared': ['Mail.Send'],
  'MailboxSettings.ReadWrite': ['MailboxSettings.Read'],
  'User.ReadWrite': ['User.Read'],
  'User.Read.All': ['User.Read', 'User.ReadBasic.All'],
  'User.ReadWrite.All': ['User.Read.All', 'User.ReadWrite'],
};

function closure(): ReadonlyMap<string, ReadonlySet<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (scope: string, into: Set<string>) => {
    for (const implied of DIRECT[scope] ?? []) {
      if (into.has(key(implied))) continue;
      into.add(key(implied));
      visit(implied, into);
    }
  };
  for (const scope of Object.keys(DIRECT)) {
    const into = new Set<string>();
    visit(scope, into);
    out.set(key(scope), into);
  }
  return out;
}

/** Bare, lower-cased scope → every scope it implies (bare, lower case). */
export const GRAPH_IMPLICATIONS = closure();

/** Whether the scopes Microsoft granted cover `required`, in either spelling and any case. */
export function graphGrants(granted: readonly string[], required: string): boolean {
  const wanted = key(required);
  return granted.some((g) => key(g) === wanted || (GRAPH_IMPLICATIONS.get(key(g))?.has(wanted) ?? false));
}

/** Each permission of the Hub as the least Graph permission that gives it. */
export const GRAPH_SCOPE_FOR: Readonly<Record<Permission, readonly string[]>> = {
  'calendar.read': ['Calendars.Read'],
  'calendar.write': ['Calendars.ReadWrite'],
  // The mailbox's time zone and working hours live in mailboxSettings, not in the calendar.
  'calendar.settings.read': ['MailboxSettings.Read'],
  'mail.metadata': ['Mail.ReadBasic'],
  'mail.read': ['Mail.Read'],
  'mail.send': ['Mail.Send'],
  // Marking a message read is a PATCH of the message: Graph asks for Mail.ReadWrite.
  'mail.modify': ['Mail.ReadWrite'],
};

/**
 * A token answer's `scope` as a list: split on spaces, OIDC scopes left out (not Graph permissions), each Graph
 * scope once whatever its case or spelling. The documentation's own example shows the value percent-encoded, so an
 * encoded scope is decoded first.
 */
export function grantedGraphScopes(scope: string): string[] {
  const seen = new Map<string, string>();
  for (const raw of scope.split(/\s+/)) {
    if (raw === '') continue;
    let s = raw;
    if (/%[0-9a-f]{2}/i.test(s)) {
      try {
        s = decodeURIComponent(s);
      } catch {
        continue; // not a scope Graph could have granted
      }
    }
    if (isOidcScope(s) || seen.has(key(s))) continue;
    seen.set(key(s), shortGraphScope(s));
  }
  return [...seen.values()];
}

export const microsoftScopeRules: ScopeRules = {
  scopesFor: (permission) => GRAPH_SCOPE_FOR[permission],
  grants: graphGrants,
  short: shortGraphScope,
};
