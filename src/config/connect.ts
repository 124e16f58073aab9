import type { ServerEnv } from './server';
import { type EnvOf, httpUrl, integer, optionalString } from './variables';

export interface ConnectConfig {
  /** Lifetime of a connect link an admin makes (POST /api/admin/connect-links). */
  linkTtlS: number;
  /** Lifetime of a connect link handed to agents as `setup_url` (errors, status): shorter, it travels further. */
  setupUrlTtlS: number;
  /** Pending sign-in attempts (oauth_states rows) allowed per link, and per client address across links. */
  maxAttemptsPerLink: number;
  maxAttemptsPerAddress: number;
  /** The OAuth redirect URI registered with Google, matched exactly. */
  redirectUri: string;
  /** URL prefixes a connect link's return_url must start with; empty = no redirects, the Hub's own page. */
  returnUrlPrefixes: string[];
}

/** Where a finished connect flow may send the person: a comma-separated list of URL prefixes (origin + path). */
const returnUrlPrefixes = optionalString.transform((s, ctx) => {
  const prefixes = (s ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of prefixes) {
    let u: URL;
    try {
      u = new URL(p);
    } catch {
      ctx.addIssue({ code: 'custom', message: `"${p}" is not a URL` });
      continue;
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: `"${p}" must be http(s)` });
    if (u.search || u.hash || u.username || u.password) ctx.addIssue({ code: 'custom', message: `"${p}" must be an origin and path only` });
  }
  return prefixes.map((p) => new URL(p).toString());
});

export const connectVariables = {
  HUB_CONNECT_LINK_TTL_S: integer(3600, 60, 7 * 86_400).describe('Lifetime (seconds) of a connect link an admin makes (`POST /api/admin/connect-links`).'),
  HUB_SETUP_URL_TTL_S: integer(900, 60, 86_400).describe(
    'Lifetime (seconds) of the connect links the Hub hands to agents as setup_url; shorter than admin links because they travel through agents, transcripts and chats.',
  ),
  HUB_CONNECT_ATTEMPTS_PER_LINK: integer(10, 1, 1000).describe(
    'Sign-in attempts one connect link may have pending at once (each open of the link starts one, valid 10 minutes); more are refused with 429.',
  ),
  HUB_CONNECT_ATTEMPTS_PER_ADDRESS: integer(100, 1, 100_000).describe(
    'Sign-in attempts one client address may have pending at once, across all links; more are refused with 429.',
  ),
  HUB_CONNECT_RETURN_URLS: returnUrlPrefixes.describe(
    "Comma-separated URL prefixes a connect link's `return_url` may point under; unset, the flow ends on the Hub's own page.",
  ),
  HUB_GOOGLE_REDIRECT_URI: httpUrl('http(s)')
    .meta({ defaultText: '`$HUB_PUBLIC_URL/integrations/google/callback`' })
    .describe('The OAuth redirect URI registered with Google, matched exactly.'),
};

export type ConnectEnv = EnvOf<typeof connectVariables>;

export const connectSection = {
  variables: connectVariables,
  load: (e: ConnectEnv & Pick<ServerEnv, 'HUB_PUBLIC_URL'>): { connect: ConnectConfig } => ({
    connect: {
      linkTtlS: e.HUB_CONNECT_LINK_TTL_S,
      setupUrlTtlS: e.HUB_SETUP_URL_TTL_S,
      maxAttemptsPerLink: e.HUB_CONNECT_ATTEMPTS_PER_LINK,
      maxAttemptsPerAddress: e.HUB_CONNECT_ATTEMPTS_PER_ADDRESS,
      redirectUri: e.HUB_GOOGLE_REDIRECT_URI ?? `${e.HUB_PUBLIC_URL}/integrations/google/callback`,
      returnUrlPrefixes: e.HUB_CONNECT_RETURN_URLS,
    },
  }),
};
