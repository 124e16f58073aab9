import { ALPHABETS } from '../random';
import type { World } from '../world';
import { IDENTITY_SCOPES } from './scopes';
import type { AccessTokenRecord, Grant, RefreshTokenRecord } from './state';

/** Token shapes as Google's: access `ya29.…`, refresh `1//0…`, code `4/0…` (log scrubbers recognise them). */
export const newAccessToken = (world: World) => `ya29.a0${world.random.string(150, ALPHABETS.base64url)}`;
export const newRefreshToken = (world: World) => `1//0${world.random.string(100, ALPHABETS.base64url)}`;
export const newAuthCode = (world: World) => `4/0A${world.random.string(70, ALPHABETS.base64url)}`;

/** The grant of `email` to `clientId`, created on first consent; scopes accumulate (include_granted_scopes). */
export function grantFor(world: World, clientId: string, email: string): Grant {
  for (const g of world.oauth.grants.values()) if (g.clientId === clientId && g.email === email) return g;
  const grant: Grant = { id: world.random.hex(16), clientId, email, scopes: new Set(), createdAt: world.clock.now(), offlineIssued: false };
  world.oauth.grants.set(grant.id, grant);
  return grant;
}

/**
 * A new refresh token for `grant`, under Google's lifetime rules (see lifetimes.ts): stamped for Testing mode and
 * time-based access, and retiring the oldest of this account's tokens for this client beyond the limit, silently
 * — Google documents a limit of 100 live refresh tokens per Google Account per OAuth 2.0 client ID, past which
 * a new one invalidates the oldest without warning (developers.google.com/identity/protocols/oauth2, "Refresh
 * token expiration"; also unified.to/blog/why_google_oauth_returns, usefulangle.com/post/51 for the older 50).
 */
export function issueRefreshToken(world: World, grant: Grant, scopes: readonly string[]): RefreshTokenRecord {
  const now = world.clock.now();
  const live = [...world.oauth.refreshTokens.values()].filter((r) => r.grantId === grant.id).sort((a, b) => a.issuedAt - b.issuedAt);
  for (const old of live.slice(0, Math.max(0, live.length - world.oauth.lifetimes.refreshTokenLimit + 1))) world.oauth.refreshTokens.delete(old.token);
  const timeLimitS = world.oauth.accountPolicies.get(grant.email)?.timeLimitedAccessS;
  const record: RefreshTokenRecord = {
    token: newRefreshToken(world),
    grantId: grant.id,
    scopes: [...scopes],
    issuedAt: now,
    lastUsedAt: now,
    ...(timeLimitS !== undefined ? { expiresAt: now + timeLimitS * 1000 } : {}),
    // Google exempts apps that ask only for sign-in scopes (name, email, profile) from the 7-day limit.
    testing: world.oauth.lifetimes.publishingStatus === 'testing' && scopes.some((s) => !IDENTITY_SCOPES.has(s)),
  };
  world.oauth.refreshTokens.set(record.token, record);
  grant.offlineIssued = true;
  return record;
}

export function issueAccessToken(world: World, grant: Grant, scopes: readonly string[], offline: boolean): AccessTokenRecord {
  const record: AccessTokenRecord = {
    token: newAccessToken(world),
    grantId: grant.id,
    clientId: grant.clientId,
    email: grant.email,
    scopes: [...scopes],
    expiresAt: world.clock.now() + world.oauth.accessTokenLifetimeS * 1000,
    offline,
  };
  world.oauth.accessTokens.set(record.token, record);
  return record;
}

/** A live access token: known, unexpired, and its grant not revoked. */
export function resolveAccessToken(world: World, token: string): AccessTokenRecord | undefined {
  const record = world.oauth.accessTokens.get(token);
  if (!record) return undefined;
  if (record.expiresAt <= world.clock.now() || !world.oauth.grants.has(record.grantId)) {
    world.oauth.accessTokens.delete(token);
    return undefined;
  }
  return record;
}

/** Revokes a grant and every token minted from it. */
export function revokeGrant(world: World, grantId: string): void {
  world.oauth.grants.delete(grantId);
  for (const [t, r] of world.oauth.accessTokens) if (r.grantId === grantId) world.oauth.accessTokens.delete(t);
  for (const [t, r] of world.oauth.refreshTokens) if (r.grantId === grantId) world.oauth.refreshTokens.delete(t);
}

/** For tests and the control API: a token for `email` with exactly `scopes`, as if consent had been given. */
export function mintTestToken(world: World, email: string, scopes: readonly string[], clientId = 'sandbox-test-client'): AccessTokenRecord {
  const grant = grantFor(world, clientId, email);
  for (const s of scopes) grant.scopes.add(s);
  return issueAccessToken(world, grant, scopes, false);
}

/**
 * An offline grant as if the person had consented (access + refresh token) — for seeding a demo before the
 * Hub's own connect flow runs it for real.
 */
export function mintOfflineGrant(world: World, clientId: string, email: string, scopes: readonly string[]) {
  const grant = grantFor(world, clientId, email);
  for (const s of scopes) grant.scopes.add(s);
  const refresh = issueRefreshToken(world, grant, scopes);
  const access = issueAccessToken(world, grant, scopes, true);
  return { accessToken: access.token, refreshToken: refresh.token, expiresAt: new Date(access.expiresAt), refreshTokenExpiresAt: refresh.expiresAt };
}
