import type { World } from '../world';
import { accountKey, findAccount } from '../world';
import { errorPage } from './consent-page';
import { policyOf } from './lifetimes';
import { IDENTITY_SCOPES, parseScopeParam } from './scopes';
import type { PendingAuthorization } from './state';
import { grantFor, newAuthCode } from './tokens';

/**
 * The authorization endpoint's logic, HTTP-free: validate the request as Google does (errors about the client
 * or redirect URI are shown to the person, never redirected to an unverified URI), then approve or deny.
 */

const CODE_LIFETIME_MS = 10 * 60_000;
const PENDING_LIFETIME_MS = 10 * 60_000;

export type AuthorizeCheck = { ok: true; pending: PendingAuthorization } | { ok: false; error: string; description: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function checkAuthorizationRequest(world: World, known: Set<string>, q: Record<string, unknown>): AuthorizeCheck {
  const fail = (error: string, description: string): AuthorizeCheck => ({ ok: false, error, description });
  const clientId = str(q.client_id);
  const client = clientId ? world.oauth.clients.get(clientId) : undefined;
  if (!client) return fail('invalid_client', 'The OAuth client was not found.');
  const redirectUri = str(q.redirect_uri);
  if (!redirectUri) return fail('invalid_request', 'Missing required parameter: redirect_uri');
  if (!client.redirectUris.includes(redirectUri)) {
    return fail('redirect_uri_mismatch', `The redirect URI in the request, ${redirectUri}, does not match the ones authorized for the OAuth client.`);
  }
  if (str(q.response_type) !== 'code') return fail('unsupported_response_type', `Invalid response_type: ${str(q.response_type) ?? ''}`);
  const scopes = parseScopeParam(str(q.scope) ?? '');
  if (scopes.length === 0) return fail('invalid_request', 'Missing required parameter: scope');
  const unknown = scopes.filter((s) => !known.has(s));
  if (unknown.length) return fail('invalid_scope', `Some requested scopes were invalid. {invalid=[${unknown.join(', ')}]}`);
  const challenge = str(q.code_challenge);
  const methodParam = str(q.code_challenge_method);
  if (methodParam && methodParam !== 'S256' && methodParam !== 'plain') return fail('invalid_request', 'Invalid code_challenge_method value.');
  if (methodParam && !challenge) return fail('invalid_request', 'Missing code_challenge.');
  if (challenge && !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) return fail('invalid_request', 'Invalid code_challenge value.');
  const accessType = str(q.access_type) ?? 'online';
  if (accessType !== 'online' && accessType !== 'offline') return fail('invalid_request', `Invalid access_type: ${accessType}`);
  const prompt = (str(q.prompt) ?? '').split(' ').filter(Boolean);
  return {
    ok: true,
    pending: {
      id: world.random.hex(24),
      client,
      redirectUri,
      state: str(q.state),
      scopes,
      codeChallenge: challenge,
      codeChallengeMethod: challenge ? ((methodParam as 'S256' | 'plain' | undefined) ?? 'plain') : undefined,
      offline: accessType === 'offline',
      forceConsent: prompt.includes('consent'),
      includeGrantedScopes: str(q.include_granted_scopes) === 'true',
      loginHint: str(q.login_hint),
      nonce: str(q.nonce),
      expiresAt: world.clock.now() + PENDING_LIFETIME_MS,
    },
  };
}

/**
 * A Workspace admin restricting the app stops consent at Google with "Error 400: admin_policy_enforced" — the
 * person sees it; the app is never redirected to (Google's web-server guide, "Authorization errors";
 * www.reco.ai/hub/error-400-admin-policy-enforced-google-workspace). The page, when `email` is so restricted.
 */
export function adminPolicyPage(world: World, email: string): string | undefined {
  if (!policyOf(world, accountKey(email)).adminBlocked) return undefined;
  return errorPage(
    'admin_policy_enforced',
    'The Google Account is unable to authorize one or more scopes requested due to the policies of their Google Workspace administrator.',
    'Access blocked: your administrator restricts this app',
  );
}

export const promptNone = (q: Record<string, unknown>) => (str(q.prompt) ?? '').split(' ').includes('none');

function redirectWith(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

export function denyUrl(pending: PendingAuthorization, error = 'access_denied'): string {
  return redirectWith(pending.redirectUri, { error, state: pending.state });
}

/**
 * The person said yes as `email`, to `chosen` of the requested scopes (partial consent). Records the grant and
 * returns the redirect carrying a one-time code, as Google does (code, scope, state, authuser, prompt).
 */
export function approve(world: World, pending: PendingAuthorization, email: string, chosen: readonly string[]): string {
  const account = findAccount(world, email);
  if (!account) return denyUrl(pending, 'access_denied');
  // Unticked scopes are simply absent: the app learns of partial consent from `scope`, as with Google.
  const granted = pending.scopes.filter((s) => IDENTITY_SCOPES.has(s) || chosen.includes(s));
  const grant = grantFor(world, pending.client.clientId, account.email);
  const tokenScopes = pending.includeGrantedScopes ? [...new Set([...grant.scopes, ...granted])] : granted;
  for (const s of granted) grant.scopes.add(s);
  const issueRefreshToken = pending.offline && (pending.forceConsent || !grant.offlineIssued);
  const code = newAuthCode(world);
  world.oauth.codes.set(code, {
    code,
    clientId: pending.client.clientId,
    redirectUri: pending.redirectUri,
    email: account.email,
    scopes: tokenScopes,
    codeChallenge: pending.codeChallenge,
    codeChallengeMethod: pending.codeChallengeMethod,
    issueRefreshToken,
    nonce: pending.nonce,
    expiresAt: world.clock.now() + CODE_LIFETIME_MS,
    used: false,
    grantId: grant.id,
  });
  world.oauth.pending.delete(pending.id);
  return redirectWith(pending.redirectUri, {
    state: pending.state,
    code,
    scope: tokenScopes.join(' '),
    authuser: '0',
    prompt: pending.forceConsent ? 'consent' : 'none',
  });
}

/** prompt=none: succeed silently only when this account already granted every requested scope. */
export function approveSilently(world: World, pending: PendingAuthorization): string {
  const email = pending.loginHint ?? [...world.oauth.grants.values()].find((g) => g.clientId === pending.client.clientId)?.email;
  const grant = email ? [...world.oauth.grants.values()].find((g) => g.clientId === pending.client.clientId && g.email === email.toLowerCase()) : undefined;
  if (!grant || pending.scopes.some((s) => !grant.scopes.has(s))) return denyUrl(pending, 'consent_required');
  return approve(world, pending, grant.email, pending.scopes);
}
