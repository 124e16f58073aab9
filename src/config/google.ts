import { z } from 'zod';
import type { ServerEnv } from './server';
import { type EnvOf, httpUrl, optionalString, url } from './variables';

/** Google's real endpoints: the defaults, so production needs only a client id and secret. */
export const GOOGLE_ENDPOINTS = {
  calendarRootUrl: 'https://www.googleapis.com/',
  gmailRootUrl: 'https://gmail.googleapis.com/',
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  revokeUrl: 'https://oauth2.googleapis.com/revoke',
  tokenInfoUrl: 'https://oauth2.googleapis.com/tokeninfo',
  pemCertsUrl: 'https://www.googleapis.com/oauth2/v1/certs',
  jwkCertsUrl: 'https://www.googleapis.com/oauth2/v3/certs',
} as const;

export type GoogleEndpoints = { -readonly [K in keyof typeof GOOGLE_ENDPOINTS]: string };

export interface GoogleConfig {
  clientId: string | undefined;
  clientSecret: string | undefined;
  endpoints: GoogleEndpoints;
  /** True when the endpoints point at the project's Google sandbox rather than Google. */
  sandbox: boolean;
  /** The OAuth app's publishing status at Google: in "testing" every grant ends 7 days after consent. */
  publishingStatus: 'production' | 'testing';
  /** The HTTP transport under googleapis (src/providers/google/http.ts), or gaxios' default node-fetch. */
  http: 'lean' | 'node-fetch';
}

/** An API root is an origin (googleapis appends the full path), so anything after the host is refused. */
const apiRoot = optionalString.pipe(
  url(['http:', 'https:'], 'http(s) origin')
    .refine((u) => new URL(u).pathname === '/' && !new URL(u).search, { message: 'must be an origin such as http://127.0.0.1:8090 (no path)' })
    .transform((u) => `${new URL(u).origin}/`)
    .optional(),
);

export const googleVariables = {
  HUB_GOOGLE_CLIENT_ID: optionalString.describe("The Hub's Google OAuth client id (required with `NODE_ENV=production`)."),
  HUB_GOOGLE_CLIENT_SECRET: optionalString.describe("The Hub's Google OAuth client secret (required with `NODE_ENV=production`; scrubbed from logs)."),
  HUB_GOOGLE_SANDBOX_URL: apiRoot.describe(
    'Origin of a Google sandbox (`npm run sandbox`): moves every Google endpoint there; the explicit endpoint variables below still win.',
  ),
  HUB_GOOGLE_API_ROOT_URL: apiRoot
    .meta({ defaultText: "Google's" })
    .describe('API origin (no path) for Calendar (`https://www.googleapis.com/`) and Gmail (`https://gmail.googleapis.com/`).'),
  HUB_GOOGLE_AUTH_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.authUrl}\`` })
    .describe("OAuth consent endpoint the person's browser is sent to."),
  HUB_GOOGLE_TOKEN_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.tokenUrl}\`` })
    .describe('OAuth token endpoint (code exchange and refresh).'),
  HUB_GOOGLE_REVOKE_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.revokeUrl}\`` })
    .describe('OAuth revocation endpoint (admin disconnect).'),
  HUB_GOOGLE_TOKENINFO_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.tokenInfoUrl}\`` })
    .describe('OAuth tokeninfo endpoint.'),
  HUB_GOOGLE_HTTP: optionalString
    .pipe(z.enum(['lean', 'node-fetch']).optional())
    .transform((s) => s ?? 'lean')
    .describe(
      "How API requests to Google are sent: `lean` (Node's http with node-fetch's headers; ~0.5 ms less CPU per request) or `node-fetch` (gaxios' default). Google receives the same requests either way.",
    ),
  HUB_GOOGLE_PUBLISHING_STATUS: optionalString
    .pipe(z.enum(['production', 'testing']).optional())
    .transform((s) => s ?? 'production')
    .describe(
      'Publishing status of the Hub’s OAuth app in Google Cloud: "testing" tells the Hub that Google ends every grant 7 days after consent, so connections show as expiring before they break.',
    ),
};

export type GoogleEnv = EnvOf<typeof googleVariables>;

function googleEndpoints(e: GoogleEnv): GoogleEndpoints {
  const sandbox = e.HUB_GOOGLE_SANDBOX_URL;
  const at = (path: string, real: string) => (sandbox ? new URL(path, sandbox).toString() : real);
  const apiRoot = e.HUB_GOOGLE_API_ROOT_URL ?? sandbox;
  return {
    calendarRootUrl: apiRoot ?? GOOGLE_ENDPOINTS.calendarRootUrl,
    gmailRootUrl: apiRoot ?? GOOGLE_ENDPOINTS.gmailRootUrl,
    authUrl: e.HUB_GOOGLE_AUTH_URL ?? at('/o/oauth2/v2/auth', GOOGLE_ENDPOINTS.authUrl),
    tokenUrl: e.HUB_GOOGLE_TOKEN_URL ?? at('/token', GOOGLE_ENDPOINTS.tokenUrl),
    revokeUrl: e.HUB_GOOGLE_REVOKE_URL ?? at('/revoke', GOOGLE_ENDPOINTS.revokeUrl),
    tokenInfoUrl: e.HUB_GOOGLE_TOKENINFO_URL ?? at('/tokeninfo', GOOGLE_ENDPOINTS.tokenInfoUrl),
    pemCertsUrl: at('/oauth2/v1/certs', GOOGLE_ENDPOINTS.pemCertsUrl),
    jwkCertsUrl: at('/oauth2/v3/certs', GOOGLE_ENDPOINTS.jwkCertsUrl),
  };
}

/** A production start refuses a missing Google OAuth client, without which every `setup_url` ends on "Google is not configured". */
function productionProblems(e: GoogleEnv & Pick<ServerEnv, 'NODE_ENV'>): string[] {
  if (e.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of ['HUB_GOOGLE_CLIENT_ID', 'HUB_GOOGLE_CLIENT_SECRET'] as const) {
    if (!e[name]) problems.push(`${name}: required with NODE_ENV=production (without the Google OAuth client no customer can connect Google)`);
  }
  return problems;
}

export const googleSection = {
  variables: googleVariables,
  problems: productionProblems,
  load: (e: GoogleEnv): { google: GoogleConfig } => ({
    google: {
      clientId: e.HUB_GOOGLE_CLIENT_ID,
      clientSecret: e.HUB_GOOGLE_CLIENT_SECRET,
      endpoints: googleEndpoints(e),
      sandbox: e.HUB_GOOGLE_SANDBOX_URL !== undefined,
      publishingStatus: e.HUB_GOOGLE_PUBLISHING_STATUS,
      http: e.HUB_GOOGLE_HTTP,
    },
  }),
};
