import { ALPHABETS } from '../random';
import type { World } from '../world';
import type { AccessTokenRecord, Grant } from './state';

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
  grant.offlineIssued = true;
  const refreshToken = newRefreshToken(world);
  world.oauth.refreshTokens.set(refreshToken, { token: refreshToken, grantId: grant.id, scopes: [...scopes] });
  const access = issueAccessToken(world, grant, scopes, true);
  return { accessToken: access.token, refreshToken, expiresAt: new Date(access.expiresAt) };
}
