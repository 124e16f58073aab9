import { type JsonWebKey, type KeyObject, createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { readBoundedText } from './http-body';

/**
 * Verifying the id_token of a code exchange (learn.microsoft.com/entra/identity-platform/id-tokens, "Validate
 * tokens"; OpenID Connect Core 3.1.3.7): RS256 signed by a key of the tenant's JWKS, found through its OpenID
 * configuration; `iss` the configuration's issuer with `{tenantid}` replaced by the token's `tid` (the
 * `common`/`organizations` documents carry the literal placeholder — v2-protocols-oidc); `aud` the Hub's client id;
 * `exp`/`nbf` with a small skew. Keys are cached and fetched again when a token names a key id the cache lacks
 * (Microsoft rolls its signing keys over: access-tokens#validate-the-signature), at most once per cool-down.
 *
 * jsonwebtoken (already the Hub's, for admin tokens) checks the signature and the times; the key comes from the
 * JWK through node:crypto. `jose` would do both but is ESM-only (Jest's CommonJS runtime cannot load it, as with
 * cockatiel 4), and `jwks-rsa` brings its own HTTP client without an abort signal.
 */

export interface IdTokenClaims {
  /** The account's object id in its tenant: what Graph's `/me` answers as `id`. */
  oid: string;
  tid: string;
  preferredUsername: string | null;
}

export type IdTokenVerdict = { ok: true; claims: IdTokenClaims } | { ok: false; failure: 'unverifiable' | 'unavailable'; reason: string };

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Clock skew allowed on exp/nbf: MSAL's own default (five minutes). */
export const CLOCK_SKEW_S = 300;
/** The OpenID configuration is kept this long; the keys until a token names one the cache lacks. */
const CONFIGURATION_TTL_MS = 24 * 3_600_000;
/** At most one fetch of the keys in this interval for unknown key ids: a flood of forged kids costs one request. */
export const JWKS_REFETCH_COOLDOWN_MS = 5 * 60_000;
const MAX_DOCUMENT_BYTES = 128 * 1024;
const MAX_KEYS = 64;

const configurationSchema = z.object({ issuer: z.string().min(1).max(512), jwks_uri: z.url().max(2_048) });
const jwksSchema = z.object({
  keys: z.array(z.looseObject({ kty: z.string(), kid: z.string().min(1).max(256).optional(), use: z.string().optional() })).max(MAX_KEYS),
});
const claimsSchema = z.object({
  iss: z.string(),
  tid: z.string().regex(GUID),
  oid: z.string().regex(GUID),
  exp: z.number(),
  preferred_username: z.string().max(320).optional(),
});

class Unavailable extends Error {}

async function getJson(url: string, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  let res: Response;
  try {
    const timeout = AbortSignal.timeout(timeoutMs);
    res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'manual', signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      throw new Unavailable(`HTTP ${res.status}`);
    }
    const text = await readBoundedText(res, MAX_DOCUMENT_BYTES);
    if (text === undefined) throw new Unavailable('document too large');
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (err instanceof Unavailable) throw err;
    throw new Unavailable(err instanceof Error ? err.name : 'fetch failed');
  }
}

export interface IdTokenVerifier {
  verify(idToken: string, signal?: AbortSignal): Promise<IdTokenVerdict>;
}

export function createIdTokenVerifier(options: {
  openidConfigurationUrl: string;
  /** The identity platform's origin: the key set must be served from it. */
  authorityUrl: string;
  clientId: string;
  timeoutMs: number;
  now?: () => number;
}): IdTokenVerifier {
  const now = options.now ?? Date.now;
  let configuration: { issuer: string; jwksUri: string; at: number } | undefined;
  let keys = new Map<string, KeyObject>();
  let keysFetchedAt = -Infinity;
  let inFlight: Promise<void> | undefined;

  async function loadConfiguration(signal?: AbortSignal) {
    if (configuration && now() - configuration.at < CONFIGURATION_TTL_MS) return configuration;
    const parsed = configurationSchema.safeParse(await getJson(options.openidConfigurationUrl, options.timeoutMs, signal));
    if (!parsed.success) throw new Unavailable('OpenID configuration without issuer or jwks_uri');
    if (new URL(parsed.data.jwks_uri).origin !== new URL(options.authorityUrl).origin) throw new Unavailable('jwks_uri outside the authority');
    configuration = { issuer: parsed.data.issuer, jwksUri: parsed.data.jwks_uri, at: now() };
    return configuration;
  }

  /** One fetch of the key set at a time; callers that arrive meanwhile wait for it. */
  function refreshKeys(jwksUri: string): Promise<void> {
    inFlight ??= (async () => {
      try {
        const parsed = jwksSchema.safeParse(await getJson(jwksUri, options.timeoutMs));
        if (!parsed.success) throw new Unavailable('key set of an unexpected shape');
        const next = new Map<string, KeyObject>();
        for (const jwk of parsed.data.keys) {
          if (jwk.kty !== 'RSA' || !jwk.kid || (jwk.use !== undefined && jwk.use !== 'sig')) continue;
          try {
            next.set(jwk.kid, createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }));
          } catch {
            // a malformed key is skipped; a token signed with it then fails as an unknown kid
          }
        }
        keys = next;
        keysFetchedAt = now(); // after a failed fetch the next token tries again: that failure was Microsoft's, not a forged kid
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  }

  /** Shared by every caller, so bounded by the timeout alone (one caller's abort must not fail the others). */
  async function keyFor(kid: string, jwksUri: string): Promise<KeyObject | undefined> {
    if (keys.has(kid)) return keys.get(kid);
    if (inFlight) await inFlight;
    else if (now() - keysFetchedAt >= JWKS_REFETCH_COOLDOWN_MS) await refreshKeys(jwksUri);
    return keys.get(kid);
  }

  return {
    async verify(idToken, signal) {
      const decoded = jwt.decode(idToken, { complete: true });
      if (!decoded || typeof decoded.payload === 'string') return { ok: false, failure: 'unverifiable', reason: 'not a JWT' };
      const { alg, kid } = decoded.header;
      if (alg !== 'RS256' || typeof kid !== 'string') return { ok: false, failure: 'unverifiable', reason: 'not signed RS256 with a key id' };
      let key: KeyObject | undefined;
      let issuerTemplate: string;
      try {
        const conf = await loadConfiguration(signal);
        issuerTemplate = conf.issuer;
        key = await keyFor(kid, conf.jwksUri);
      } catch (err) {
        return { ok: false, failure: 'unavailable', reason: err instanceof Unavailable ? err.message : 'signing keys unreachable' };
      }
      if (!key) return { ok: false, failure: 'unverifiable', reason: 'signed with an unknown key' };
      let payload: unknown;
      try {
        payload = jwt.verify(idToken, key, {
          algorithms: ['RS256'],
          audience: options.clientId,
          clockTolerance: CLOCK_SKEW_S,
          clockTimestamp: Math.floor(now() / 1000),
        });
      } catch (err) {
        // jsonwebtoken's messages name the claim that failed, never the token: keep the first words only.
        return { ok: false, failure: 'unverifiable', reason: err instanceof Error ? err.message.split(/[.:]/)[0]!.slice(0, 60) : 'invalid' };
      }
      const claims = claimsSchema.safeParse(payload);
      // exp is required (jsonwebtoken accepts a token without one); tid and oid identify the account.
      if (!claims.success) return { ok: false, failure: 'unverifiable', reason: 'claims missing or malformed' };
      const c = claims.data;
      if (c.iss !== issuerTemplate.replace('{tenantid}', c.tid)) return { ok: false, failure: 'unverifiable', reason: 'unexpected issuer' };
      return { ok: true, claims: { oid: c.oid.toLowerCase(), tid: c.tid.toLowerCase(), preferredUsername: c.preferred_username ?? null } };
    },
  };
}
