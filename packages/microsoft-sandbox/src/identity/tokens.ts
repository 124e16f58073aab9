import jwt from 'jsonwebtoken';
import { ALPHABETS } from '../random';
import type { Person, Tenant, World } from '../world';
import { GRAPH_APP_ID, GRAPH_RESOURCE } from './scopes';
import type { AppRegistration } from './state';

/**
 * Minting and reading tokens. Access tokens for Graph are JWTs (v1.0 format, `aud` Graph's app id) that a client
 * must treat as opaque — Graph's tokens "are not meant to be validated by the app" (access-tokens#validate-tokens);
 * the sandbox looks each one up in its own table, so a revoked, expired or unknown one is refused whatever its
 * claims say. Refresh tokens are opaque strings, as Microsoft's are. ID tokens are v2.0 JWTs signed RS256 with
 * the key at /{tenant}/discovery/v2.0/keys.
 */

const unixS = (ms: number) => Math.floor(ms / 1000);

export function issuer(baseUrl: string, tenantId: string) {
  return `${baseUrl}/${tenantId}/v2.0`;
}

export function mintAccessToken(world: World, app: AppRegistration, person: Person, scopes: string[]) {
  const { accessTokenMinS, accessTokenMaxS } = world.identity.lifetimes;
  const lifetimeS = accessTokenMinS + Math.floor(world.random.next() * (accessTokenMaxS - accessTokenMinS + 1));
  const now = world.clock.now();
  const graphScopes = scopes.filter((s) => /[A-Z]/.test(s[0] ?? ''));
  const token = jwt.sign(
    {
      aud: GRAPH_RESOURCE,
      iss: `https://sts.windows.net/${person.tenantId}/`,
      iat: unixS(now),
      nbf: unixS(now),
      exp: unixS(now) + lifetimeS,
      app_displayname: app.name,
      appid: app.clientId,
      idtyp: 'user',
      name: person.displayName,
      oid: person.id,
      scp: graphScopes.join(' '),
      tid: person.tenantId,
      upn: person.userPrincipalName,
      ver: '1.0',
      uti: world.random.string(22, ALPHABETS.base64url),
    },
    world.identity.signing.privateKey,
    {
      algorithm: 'RS256',
      keyid: world.identity.signing.kid,
      header: { alg: 'RS256', typ: 'JWT', nonce: world.random.string(43, ALPHABETS.base64url) } as jwt.JwtHeader,
    },
  );
  pruneExpired(world, now);
  world.identity.access.set(token, { clientId: app.clientId, userId: person.id, scopes: graphScopes, issuedAt: now, expiresAt: now + lifetimeS * 1000 });
  return { token, lifetimeS };
}

/** Expired access tokens and codes are forgotten now and then, so a long-running sandbox does not grow without end. */
function pruneExpired(world: World, now: number) {
  const { access, codes, lifetimes } = world.identity;
  if (access.size % 500 !== 0) return;
  for (const [token, grant] of access) if (grant.expiresAt < now) access.delete(token);
  for (const [code, c] of codes) if (now - c.issuedAt > lifetimes.authCodeS * 1000) codes.delete(code);
}

export function mintRefreshToken(world: World, app: AppRegistration, person: Person, scopes: string[]) {
  // Shaped like Microsoft's: long, opaque, starting with a version marker.
  const token = `1.A${world.random.string(420, ALPHABETS.base64url)}`;
  world.identity.refresh.set(token, { token, clientId: app.clientId, userId: person.id, scopes, issuedAt: world.clock.now(), consentWithdrawn: false });
  return token;
}

export function mintIdToken(world: World, baseUrl: string, app: AppRegistration, person: Person, tenant: Tenant, nonce: string | undefined) {
  const now = world.clock.now();
  return jwt.sign(
    {
      aud: app.clientId,
      iss: issuer(baseUrl, tenant.id),
      iat: unixS(now),
      nbf: unixS(now),
      exp: unixS(now) + 3600,
      name: person.displayName,
      oid: person.id,
      preferred_username: person.userPrincipalName,
      email: person.userPrincipalName,
      sub: world.random.string(43, ALPHABETS.base64url),
      tid: tenant.id,
      ver: '2.0',
      ...(nonce ? { nonce } : {}),
    },
    world.identity.signing.privateKey,
    { algorithm: 'RS256', keyid: world.identity.signing.kid },
  );
}

/** MSAL reads `client_info` (base64url JSON of uid/utid) to key its account cache. */
export const clientInfo = (person: Person) => Buffer.from(JSON.stringify({ uid: person.id, utid: person.tenantId })).toString('base64url');

export { GRAPH_APP_ID };
