import { isIP } from 'node:net';
import { z } from 'zod';
import { type OutlookLimitsEnv, type OutlookMailboxLimits, loadOutlookLimits, outlookLimitProblems, outlookLimitVariables } from './outlook-limits';
import type { ServerEnv } from './server';
import { type EnvOf, integer, optionalString } from './variables';

/**
 * The Microsoft section of the configuration: the Hub's app registration in Microsoft Entra ID, which tenants may
 * connect, and where the identity platform and Graph are. The secret also reads from `HUB_MICROSOFT_CLIENT_SECRET_FILE`
 * (secret-files.ts), as every secret variable does. Outlook's per-mailbox limits, as the Hub enforces them, are
 * part of it (outlook-limits.ts).
 */

export const MICROSOFT_AUTHORITY = 'https://login.microsoftonline.com';
export const MICROSOFT_GRAPH = 'https://graph.microsoft.com/v1.0';

/** An Entra tenant id, and the Application (client) ID: both GUIDs. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A verified domain of a tenant (contoso.onmicrosoft.com, contoso.com). */
const DOMAIN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** An http(s) URL without query, fragment or credentials; `origin`: nothing after the host either. Trailing slashes go. */
const endpoint = (what: 'origin' | 'url') =>
  optionalString.transform((raw, ctx): string | undefined => {
    if (raw === undefined) return undefined;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
      return z.NEVER;
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: 'must use http:// or https://' });
    else if (u.search || u.hash || u.username || u.password) ctx.addIssue({ code: 'custom', message: 'must have no query, fragment or credentials' });
    else if (what === 'origin' && u.pathname !== '/')
      ctx.addIssue({ code: 'custom', message: 'must be an origin such as https://login.microsoftonline.com (no path)' });
    else return what === 'origin' ? u.origin : `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
    return z.NEVER;
  });

/** `common`, `organizations`, a tenant id or a verified domain; `consumers` (personal accounts) is refused. */
const tenant = optionalString.transform((raw, ctx): string => {
  if (raw === undefined) return 'organizations';
  const lower = raw.toLowerCase();
  if (lower === 'consumers' || lower === '9188040d-6c67-4c5b-b112-36a304b66dad') {
    ctx.addIssue({
      code: 'custom',
      message:
        'personal Microsoft accounts are not supported (Graph refuses them getSchedule, among others): use organizations, common, or a tenant id or domain',
    });
    return z.NEVER;
  }
  if (lower === 'common' || lower === 'organizations' || GUID.test(lower) || DOMAIN.test(lower)) return lower;
  ctx.addIssue({ code: 'custom', message: 'must be organizations, common, a tenant id (GUID) or a verified domain (contoso.onmicrosoft.com)' });
  return z.NEVER;
});

/** Each variable with the sentence the configuration page lists it with. */
export const microsoftVariables = {
  HUB_MICROSOFT_CLIENT_ID: optionalString
    .pipe(z.string().regex(GUID, { message: 'must be the Application (client) ID, a GUID' }).optional())
    .describe(
      "The Application (client) ID of the Hub's app registration in Microsoft Entra ID; set with the secret, or leave both unset (no Microsoft integrations).",
    ),
  HUB_MICROSOFT_CLIENT_SECRET: optionalString.describe(
    "A client secret's value (not its id) of that app registration (also `HUB_MICROSOFT_CLIENT_SECRET_FILE`; scrubbed from logs).",
  ),
  HUB_MICROSOFT_TENANT: tenant.describe(
    'Whose accounts may connect: `organizations` (any work or school account), `common` (the same; personal accounts are refused either way), or one tenant id or verified domain.',
  ),
  HUB_MICROSOFT_SANDBOX_URL: endpoint('origin').describe(
    'Origin of a Microsoft sandbox (`npm run sandbox:microsoft`): moves the identity platform and Graph there; the two variables below still win.',
  ),
  HUB_MICROSOFT_AUTHORITY_URL: endpoint('origin')
    .meta({ defaultText: `\`${MICROSOFT_AUTHORITY}\`` })
    .describe('Origin of the Microsoft identity platform (a national cloud has its own, e.g. `https://login.microsoftonline.us`).'),
  HUB_MICROSOFT_GRAPH_URL: endpoint('url')
    .meta({ defaultText: `\`${MICROSOFT_GRAPH}\`` })
    .describe('Microsoft Graph with its version (`https://graph.microsoft.us/v1.0` for US Government).'),
  HUB_MICROSOFT_REDIRECT_URI: endpoint('url')
    .meta({ defaultText: '`$HUB_PUBLIC_URL/integrations/microsoft/callback`' })
    .describe('The redirect URI registered (platform "Web") in the app registration, matched exactly.'),
  HUB_MICROSOFT_TIMEOUT_MS: integer(10_000, 50, 120_000).describe(
    'Timeout of one HTTP attempt to Microsoft (token endpoint, signing keys, Graph); also bounds a token refresh.',
  ),
};

export interface MicrosoftConfig {
  /** Unset: Microsoft is not configured (connecting answers so); set together with the secret. */
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The `{tenant}` path segment: `organizations`, `common`, a tenant id or domain (lower case). */
  tenant: string;
  /** The identity platform's origin, no trailing slash. */
  authorityUrl: string;
  /** Graph's versioned root, no trailing slash. */
  graphUrl: string;
  redirectUri: string;
  /** One HTTP attempt toward Microsoft. */
  timeoutMs: number;
  /** True when the endpoints are the project's Microsoft sandbox. */
  sandbox: boolean;
  /** Outlook's per-mailbox budget and in-flight cap, enforced before each Graph request. */
  mailboxLimits: OutlookMailboxLimits;
}

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
const isLoopback = (url: string) => {
  const host = new URL(url).hostname.toLowerCase();
  return LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || (isIP(host) === 4 && host.startsWith('127.'));
};

/**
 * Plain http reaches Microsoft only in development: in production a token, a code or a client secret would cross
 * the network unencrypted. Loopback stays allowed (a sandbox or a local proxy beside the Hub), as Entra itself
 * allows http only for localhost redirect URIs.
 */
function insecureEndpoints(e: MicrosoftEnv, redirectUri: string, production: boolean): string[] {
  if (!production) return [];
  const named: [string, string | undefined][] = [
    ['HUB_MICROSOFT_SANDBOX_URL', e.HUB_MICROSOFT_SANDBOX_URL],
    ['HUB_MICROSOFT_AUTHORITY_URL', e.HUB_MICROSOFT_AUTHORITY_URL],
    ['HUB_MICROSOFT_GRAPH_URL', e.HUB_MICROSOFT_GRAPH_URL],
    ['HUB_MICROSOFT_REDIRECT_URI', redirectUri],
  ];
  return named
    .filter(([, url]) => url !== undefined && url.startsWith('http:') && !isLoopback(url))
    .map(([name]) => `${name}: must use https with NODE_ENV=production (http is allowed for loopback addresses only)`);
}

export type MicrosoftEnv = EnvOf<typeof microsoftVariables> & OutlookLimitsEnv;

/** The redirect URI: the explicit one, else the public URL's callback path. */
const redirectUriOf = (e: MicrosoftEnv & Pick<ServerEnv, 'HUB_PUBLIC_URL'>) =>
  e.HUB_MICROSOFT_REDIRECT_URI ?? `${e.HUB_PUBLIC_URL.replace(/\/+$/, '')}/integrations/microsoft/callback`;

/** Refusals that involve several variables: the client id and secret only together, and no plain http to Microsoft in production. */
function problems(e: MicrosoftEnv & Pick<ServerEnv, 'HUB_PUBLIC_URL' | 'NODE_ENV'>): string[] {
  const found: string[] = [];
  if (Boolean(e.HUB_MICROSOFT_CLIENT_ID) !== Boolean(e.HUB_MICROSOFT_CLIENT_SECRET)) {
    found.push(
      `${e.HUB_MICROSOFT_CLIENT_ID ? 'HUB_MICROSOFT_CLIENT_SECRET' : 'HUB_MICROSOFT_CLIENT_ID'}: set HUB_MICROSOFT_CLIENT_ID and HUB_MICROSOFT_CLIENT_SECRET together, or neither`,
    );
  }
  return [...found, ...insecureEndpoints(e, redirectUriOf(e), e.NODE_ENV === 'production'), ...outlookLimitProblems(e)];
}

export const microsoftSection = {
  variables: { ...microsoftVariables, ...outlookLimitVariables },
  problems,
  load: (e: MicrosoftEnv & Pick<ServerEnv, 'HUB_PUBLIC_URL'>): { microsoft: MicrosoftConfig } => {
    const sandbox = e.HUB_MICROSOFT_SANDBOX_URL;
    return {
      microsoft: {
        clientId: e.HUB_MICROSOFT_CLIENT_ID?.toLowerCase(),
        clientSecret: e.HUB_MICROSOFT_CLIENT_SECRET,
        tenant: e.HUB_MICROSOFT_TENANT,
        authorityUrl: e.HUB_MICROSOFT_AUTHORITY_URL ?? sandbox ?? MICROSOFT_AUTHORITY,
        graphUrl: e.HUB_MICROSOFT_GRAPH_URL ?? (sandbox ? `${sandbox}/v1.0` : MICROSOFT_GRAPH),
        redirectUri: redirectUriOf(e),
        timeoutMs: e.HUB_MICROSOFT_TIMEOUT_MS,
        sandbox: sandbox !== undefined,
        mailboxLimits: loadOutlookLimits(e),
      },
    };
  },
};
