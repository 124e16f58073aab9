/**
 * Microsoft Graph's delegated permissions the sandbox knows (learn.microsoft.com/graph/permissions-reference),
 * with whether an administrator must consent to them. Requests may name them bare (`Mail.Read`) or with
 * Graph's resource URI (`https://graph.microsoft.com/Mail.Read`); `/.default` means every permission the
 * app registration lists. `openid profile email offline_access` are the OpenID Connect scopes.
 */
export const GRAPH_RESOURCE = 'https://graph.microsoft.com';
export const GRAPH_APP_ID = '00000003-0000-0000-c000-000000000000';

export const GRAPH_SCOPES: Record<string, { adminOnly: boolean }> = {
  'User.Read': { adminOnly: false },
  'User.ReadBasic.All': { adminOnly: false },
  'User.Read.All': { adminOnly: true },
  'Calendars.Read': { adminOnly: false },
  'Calendars.ReadWrite': { adminOnly: false },
  'Calendars.Read.Shared': { adminOnly: false },
  'Calendars.ReadWrite.Shared': { adminOnly: false },
  'Mail.ReadBasic': { adminOnly: false },
  'Mail.Read': { adminOnly: false },
  'Mail.ReadWrite': { adminOnly: false },
  'Mail.Send': { adminOnly: false },
  'MailboxSettings.Read': { adminOnly: false },
  'MailboxSettings.ReadWrite': { adminOnly: false },
};

export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

export type ParsedScopes = { ok: true; graph: string[]; oidc: string[]; defaultScope: boolean } | { ok: false; unknown: string };

/** Splits a space-separated scope parameter; names are case-insensitive and come back in Graph's casing. */
export function parseScopes(param: string): ParsedScopes {
  const graph = new Set<string>();
  const oidc = new Set<string>();
  let defaultScope = false;
  for (const raw of param.split(/\s+/).filter(Boolean)) {
    const lower = raw.toLowerCase();
    if ((OIDC_SCOPES as readonly string[]).includes(lower)) {
      oidc.add(lower);
      continue;
    }
    const bare = lower.startsWith(`${GRAPH_RESOURCE}/`) ? raw.slice(GRAPH_RESOURCE.length + 1) : raw;
    if (bare === '.default') {
      defaultScope = true;
      continue;
    }
    const known = Object.keys(GRAPH_SCOPES).find((s) => s.toLowerCase() === bare.toLowerCase());
    if (!known) return { ok: false, unknown: raw };
    graph.add(known);
  }
  return { ok: true, graph: [...graph], oidc: [...oidc], defaultScope };
}

/** Which scopes let a caller do what: any one of the list suffices (each Graph page's permissions table). */
export const NEEDS = {
  userRead: ['User.Read', 'User.ReadBasic.All', 'User.Read.All'],
  mailboxSettingsRead: ['MailboxSettings.Read', 'MailboxSettings.ReadWrite'],
  mailboxSettingsWrite: ['MailboxSettings.ReadWrite'],
  calendarsRead: ['Calendars.Read', 'Calendars.ReadWrite', 'Calendars.Read.Shared', 'Calendars.ReadWrite.Shared'],
  calendarsWrite: ['Calendars.ReadWrite', 'Calendars.ReadWrite.Shared'],
  mailRead: ['Mail.Read', 'Mail.ReadWrite'],
  mailReadBasic: ['Mail.ReadBasic', 'Mail.Read', 'Mail.ReadWrite'],
  mailWrite: ['Mail.ReadWrite'],
  mailSend: ['Mail.Send'],
} as const;
