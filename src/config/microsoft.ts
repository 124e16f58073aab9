import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The Microsoft section of the configuration: the Hub's app registration in Microsoft Entra ID, which tenants may
 * connect, and where the identity platform and Graph are. Read from an environment record handed in (never
 * `process.env`); every problem is reported at once, naming its variable and never echoing a secret.
 */

export const MICROSOFT_AUTHORITY = 'https://login.microsoftonline.com';
export const MICROSOFT_GRAPH = 'https://graph.microsoft.com/v1.0';

/** An Entra tenant id, and the Application (client) ID: both GUIDs. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A verified domain of a tenant (contoso.onmicrosoft.com, contoso.com). */
const DOMAIN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

const integer = (def: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx): number => {
      if (s === undefined || s.trim() === '') return def;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

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
export const microsoftEnvSchema = z.object({
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
});

export const MICROSOFT_CONFIG_SCHEMA = { title: 'Microsoft 365 (Outlook Calendar, Outlook Mail)', schema: microsoftEnvSchema } as const;

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
}

const SECRET = 'HUB_MICROSOFT_CLIENT_SECRET';

/** HUB_MICROSOFT_CLIENT_SECRET, or the file HUB_MICROSOFT_CLIENT_SECRET_FILE names (a Docker or Kubernetes secret) — never both. */
function withSecretFile(env: Record<string, string | undefined>): { env: Record<string, string | undefined>; problem?: string } {
  const set = (v: string | undefined) => v !== undefined && v.trim() !== '';
  const path = env[`${SECRET}_FILE`];
  if (!set(path)) return { env };
  if (set(env[SECRET])) return { env, problem: `${SECRET} and ${SECRET}_FILE are both set: set one of them, not both` };
  try {
    // The file's trailing newline (echo, most editors, `kubectl create secret --from-file`) is not part of the secret.
    const value = readFileSync(path!.trim(), 'utf8').replace(/[\r\n]+$/, '');
    if (value.trim() === '') return { env, problem: `${SECRET}_FILE: ${path!.trim()} is empty` };
    return { env: { ...env, [SECRET]: value } };
  } catch (err) {
    return { env, problem: `${SECRET}_FILE: cannot read ${path!.trim()} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})` };
  }
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
function insecureEndpoints(e: z.output<typeof microsoftEnvSchema>, redirectUri: string, production: boolean): string[] {
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

export type MicrosoftConfigResult = { ok: true; config: MicrosoftConfig } | { ok: false; problems: string[] };

/**
 * The Microsoft section from an environment record. `HUB_PUBLIC_URL` (for the default redirect URI) and `NODE_ENV`
 * are the Hub's own variables, checked where they are defined; here they are only read.
 */
export function readMicrosoftConfig(env: Record<string, string | undefined>): MicrosoftConfigResult {
  const files = withSecretFile(env);
  const parsed = microsoftEnvSchema.safeParse(files.env);
  const problems = files.problem ? [files.problem] : [];
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      const name = i.path.join('.');
      if (!(files.problem && name === SECRET)) problems.push(`${name || '(environment)'}: ${i.message}`);
    }
    return { ok: false, problems };
  }
  const e = parsed.data;
  if (Boolean(e.HUB_MICROSOFT_CLIENT_ID) !== Boolean(e.HUB_MICROSOFT_CLIENT_SECRET) && !files.problem) {
    problems.push(
      `${e.HUB_MICROSOFT_CLIENT_ID ? 'HUB_MICROSOFT_CLIENT_SECRET' : 'HUB_MICROSOFT_CLIENT_ID'}: set HUB_MICROSOFT_CLIENT_ID and HUB_MICROSOFT_CLIENT_SECRET together, or neither`,
    );
  }
  const publicUrl = env.HUB_PUBLIC_URL?.trim().replace(/\/+$/, '');
  const redirectUri = e.HUB_MICROSOFT_REDIRECT_URI ?? (publicUrl ? `${publicUrl}/integrations/microsoft/callback` : undefined);
  if (redirectUri === undefined) problems.push('HUB_MICROSOFT_REDIRECT_URI: required when HUB_PUBLIC_URL is not set');
  else problems.push(...insecureEndpoints(e, redirectUri, env.NODE_ENV?.trim() === 'production'));
  if (problems.length > 0 || redirectUri === undefined) return { ok: false, problems };
  const sandbox = e.HUB_MICROSOFT_SANDBOX_URL;
  return {
    ok: true,
    config: {
      clientId: e.HUB_MICROSOFT_CLIENT_ID?.toLowerCase(),
      clientSecret: e.HUB_MICROSOFT_CLIENT_SECRET,
      tenant: e.HUB_MICROSOFT_TENANT,
      authorityUrl: e.HUB_MICROSOFT_AUTHORITY_URL ?? sandbox ?? MICROSOFT_AUTHORITY,
      graphUrl: e.HUB_MICROSOFT_GRAPH_URL ?? (sandbox ? `${sandbox}/v1.0` : MICROSOFT_GRAPH),
      redirectUri,
      timeoutMs: e.HUB_MICROSOFT_TIMEOUT_MS,
      sandbox: sandbox !== undefined,
    },
  };
}

/** For callers that stop on a bad configuration: the section, or an Error listing every problem. */
export function loadMicrosoftConfig(env: Record<string, string | undefined>): MicrosoftConfig {
  const read = readMicrosoftConfig(env);
  if (read.ok) return read.config;
  throw new Error(`Invalid configuration:\n${read.problems.map((p) => `  - ${p}`).join('\n')}`);
}
