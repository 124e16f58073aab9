import { createHash, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { ApiResult } from '../google-errors';
import { type World, findAccount } from '../world';
import type { OAuthClient } from './state';
import { expiresInField, refreshRefusal } from './lifetimes';
import type { RefreshTokenRecord } from './state';
import { issueAccessToken, issueRefreshToken, newRefreshToken, revokeGrant } from './tokens';
import { parseScopeParam } from './scopes';

/** The token endpoint (`POST /token`): authorization_code (with PKCE) and refresh_token grants, as Google answers. */

const oauthError = (status: number, error: string, description: string): ApiResult => ({
  status,
  body: { error, error_description: description },
});
const EXPIRED_OR_REVOKED = () => oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');

const safeEqual = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** client_secret_post or client_secret_basic, like Google. */
export function authenticateClient(world: World, form: Record<string, string>, authorization: string | undefined): OAuthClient | ApiResult {
  let id = form.client_id;
  let secret = form.client_secret;
  const basic = authorization && /^Basic\s+(\S+)$/i.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const sep = decoded.indexOf(':');
    id = decodeURIComponent(decoded.slice(0, sep));
    secret = decodeURIComponent(decoded.slice(sep + 1));
  }
  if (!id) return oauthError(400, 'invalid_request', 'Could not determine client ID from request.');
  const client = world.oauth.clients.get(id);
  if (!client) return oauthError(401, 'invalid_client', 'The OAuth client was not found.');
  if (!secret || !safeEqual(secret, client.clientSecret)) return oauthError(401, 'invalid_client', 'Unauthorized');
  return client;
}

/** Stable 21-digit subject per account, as Google's `sub`. */
const subjectOf = (email: string) => (BigInt(`0x${createHash('sha256').update(email).digest('hex').slice(0, 16)}`) % 10n ** 21n).toString().padStart(21, '1');

function idToken(world: World, clientId: string, email: string, nonce: string | undefined): string {
  const account = findAccount(world, email);
  const iat = Math.floor(world.clock.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: 'https://accounts.google.com',
    azp: clientId,
    aud: clientId,
    sub: subjectOf(email),
    email,
    email_verified: true,
    iat,
    exp: iat + 3600,
    ...(account ? { name: account.name } : {}),
    ...(nonce ? { nonce } : {}),
  };
  return jwt.sign(claims, world.oauth.signing.privateKey, { algorithm: 'RS256', keyid: world.oauth.signing.kid });
}

function tokenResponse(
  world: World,
  grantId: string,
  clientId: string,
  email: string,
  scopes: string[],
  offline: boolean,
  refresh: RefreshTokenRecord | undefined,
  nonce?: string,
): ApiResult {
  const grant = world.oauth.grants.get(grantId)!;
  const access = issueAccessToken(world, grant, scopes, offline);
  return {
    status: 200,
    body: {
      access_token: access.token,
      expires_in: world.oauth.accessTokenLifetimeS,
      ...(refresh ? { refresh_token: refresh.token, ...expiresInField(world, refresh) } : {}),
      scope: scopes.join(' '),
      token_type: 'Bearer',
      ...(scopes.includes('openid') ? { id_token: idToken(world, clientId, email, nonce) } : {}),
    },
  };
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function exchangeCode(world: World, client: OAuthClient, form: Record<string, string>): ApiResult {
  if (!form.code) return oauthError(400, 'invalid_request', 'Missing required parameter: code');
  const code = world.oauth.codes.get(form.code);
  if (!code || code.clientId !== client.clientId) return EXPIRED_OR_REVOKED();
  if (code.used) {
    revokeGrant(world, code.grantId); // a replayed code revokes what it produced, as Google does
    return EXPIRED_OR_REVOKED();
  }
  if (code.expiresAt <= world.clock.now() || !world.oauth.grants.has(code.grantId)) return EXPIRED_OR_REVOKED();
  if (form.redirect_uri !== code.redirectUri) return oauthError(400, 'redirect_uri_mismatch', 'Bad Request');
  if (code.codeChallenge) {
    if (!form.code_verifier) return oauthError(400, 'invalid_grant', 'Missing code verifier.');
    const derived = code.codeChallengeMethod === 'S256' ? s256(form.code_verifier) : form.code_verifier;
    if (!safeEqual(derived, code.codeChallenge)) return oauthError(400, 'invalid_grant', 'Invalid code verifier.');
  }
  code.used = true;
  const refresh = code.issueRefreshToken ? issueRefreshToken(world, world.oauth.grants.get(code.grantId)!, code.scopes) : undefined;
  return tokenResponse(world, code.grantId, client.clientId, code.email, code.scopes, code.issueRefreshToken, refresh, code.nonce);
}

export function refreshAccess(world: World, client: OAuthClient, form: Record<string, string>): ApiResult {
  if (!form.refresh_token) return oauthError(400, 'invalid_request', 'Missing required parameter: refresh_token');
  const record = world.oauth.refreshTokens.get(form.refresh_token);
  const grant = record && world.oauth.grants.get(record.grantId);
  if (!record || !grant) return EXPIRED_OR_REVOKED();
  if (grant.clientId !== client.clientId) return oauthError(401, 'unauthorized_client', 'Unauthorized');
  const refused = refreshRefusal(world, record, grant);
  if (refused) return refused;
  let scopes = record.scopes;
  if (form.scope) {
    const asked = parseScopeParam(form.scope);
    if (asked.some((s) => !record.scopes.includes(s))) return oauthError(400, 'invalid_scope', 'Bad Request');
    scopes = asked;
  }
  let rotated: RefreshTokenRecord | undefined;
  if (world.oauth.rotateRefreshTokens) {
    // The same grant under a new token: its lifetime (issue time, Testing, time limit) carries over.
    rotated = { ...record, token: newRefreshToken(world) };
    world.oauth.refreshTokens.delete(record.token);
    world.oauth.refreshTokens.set(rotated.token, rotated);
  }
  return tokenResponse(world, grant.id, client.clientId, grant.email, scopes, true, rotated);
}

export function tokenEndpoint(world: World, form: Record<string, string>, authorization: string | undefined): ApiResult {
  const client = authenticateClient(world, form, authorization);
  if ('status' in client) return client;
  switch (form.grant_type) {
    case 'authorization_code':
      return exchangeCode(world, client, form);
    case 'refresh_token':
      return refreshAccess(world, client, form);
    case undefined:
    case '':
      return oauthError(400, 'unsupported_grant_type', 'Invalid grant_type: ');
    default:
      return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${form.grant_type}`);
  }
}

export { oauthError, subjectOf };
