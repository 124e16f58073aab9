import { createHash, randomBytes } from 'node:crypto';
import { MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import type { MicrosoftConfig } from '../../src/config';
import type { ConnectGrant } from '../../src/core/provider';
import { type MicrosoftOAuth, createMicrosoftOAuth } from '../../src/providers/microsoft/oauth';
import { OUTLOOK_CALENDAR } from '../../src/providers/microsoft/catalog';
import { testConfig } from './env';
import { type CapturedLogs, captureLogs } from './logs';
import type { MicrosoftWorld } from './microsoft';

/**
 * The Hub's Microsoft connecting port pointed at the in-process sandbox (test/helpers/microsoft.ts), with its log
 * captured, and the browser's part of a sign-in: follow the authorize URL (the sandbox's consent mode answers),
 * read the code from the redirect.
 */

export const HUB_PUBLIC_URL = 'http://127.0.0.1:9';
export const REDIRECT_URI = `${HUB_PUBLIC_URL}/integrations/microsoft/callback`;

/**
 * A test Hub's environment for connecting through the sandbox's real flow: its app registration, and the redirect
 * URI it knows (the browser's hop back is replayed on the Hub).
 */
export const connectFlowEnv = (world: MicrosoftWorld, env: Record<string, string> = {}): Record<string, string> => ({
  HUB_MICROSOFT_SANDBOX_URL: world.running.url,
  HUB_MICROSOFT_CLIENT_ID: MS_SANDBOX_DEFAULT_APP.clientId,
  HUB_MICROSOFT_CLIENT_SECRET: MS_SANDBOX_DEFAULT_APP.clientSecret,
  HUB_MICROSOFT_REDIRECT_URI: REDIRECT_URI,
  ...env,
});

export function sandboxConfig(world: MicrosoftWorld, env: Record<string, string> = {}): MicrosoftConfig {
  return testConfig({
    HUB_PUBLIC_URL,
    HUB_MICROSOFT_SANDBOX_URL: world.running.url,
    HUB_MICROSOFT_CLIENT_ID: MS_SANDBOX_DEFAULT_APP.clientId,
    HUB_MICROSOFT_CLIENT_SECRET: MS_SANDBOX_DEFAULT_APP.clientSecret,
    HUB_MICROSOFT_TIMEOUT_MS: '5000',
    ...env,
  }).microsoft;
}

export function hubOAuth(config: MicrosoftConfig, logs: CapturedLogs = captureLogs('debug')): { oauth: MicrosoftOAuth; logs: CapturedLogs } {
  return { oauth: createMicrosoftOAuth(config, { logger: logs.logger }), logs };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET the URL as a browser would and return the redirect's query (the sandbox answers consent itself in `auto` mode). */
export async function browse(url: string): Promise<URLSearchParams> {
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`expected a redirect from ${new URL(url).pathname}, got ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const location = new URL(res.headers.get('location')!);
  if (`${location.origin}${location.pathname}` !== REDIRECT_URI) throw new Error(`redirected elsewhere: ${location.origin}${location.pathname}`);
  return location.searchParams;
}

/** A sign-in through the Hub's authorize URL: the callback's query and the verifier that belongs to it. */
export async function signIn(oauth: MicrosoftOAuth, options: { scopes?: readonly string[]; freshConsent?: boolean; loginHint?: string } = {}) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(16).toString('base64url');
  const url = oauth.authorizeUrl({
    scopes: options.scopes ?? OUTLOOK_CALENDAR.scopes,
    state,
    codeChallenge: challenge,
    freshConsent: options.freshConsent ?? true,
    ...(options.loginHint ? { loginHint: options.loginHint } : {}),
  });
  const query = await browse(url);
  if (query.get('state') !== state) throw new Error('the state did not come back');
  return { query, verifier, code: query.get('code') };
}

/** Sign in and exchange: the grant, or the failure. */
export async function connect(oauth: MicrosoftOAuth, options: Parameters<typeof signIn>[1] = {}): Promise<ConnectGrant> {
  const { code, verifier, query } = await signIn(oauth, options);
  if (!code) throw new Error(`no code: ${query.get('error')} ${query.get('error_description')}`);
  const exchanged = await oauth.exchange(code, verifier);
  if (!exchanged.ok) throw new Error(`exchange failed: ${exchanged.failure}`);
  return exchanged.tokens;
}
