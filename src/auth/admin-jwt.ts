import { type KeyObject, createPublicKey, createSecretKey } from 'node:crypto';
import type { RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import type { Config } from '../config';
import { HubFailure, hubError } from '../core/errors';
import type { AdminPrincipal } from './admin-access';

/**
 * `Authorization: Bearer <JWT>` for the admin API, verified against HUB_ADMIN_JWT_SECRET (HS256) or
 * HUB_ADMIN_JWT_PUBLIC_KEY (RS256). Exactly the configured algorithm is accepted — never `none`, and never
 * HS256 on an RS256 deployment (where the public key would otherwise work as an HMAC secret). `iss` and `aud`
 * must match; `exp` and `iat` are required (jsonwebtoken only checks them when present), `iat` may not lie in
 * the future and `exp - iat` may not exceed HUB_ADMIN_JWT_MAX_TTL_S — so no token lives longer than that from
 * the moment it is accepted (an `exp` in the year 9999 is refused, not trusted). jsonwebtoken does the signature
 * comparison; nothing secret is compared here.
 */

/** `lifetime`: validly signed, but without iat/exp, issued in the future, or declaring too long a life. */
export type AdminTokenProblem = 'invalid' | 'expired' | 'lifetime' | 'no_access';
export type AdminTokenCheck = { ok: true; principal: AdminPrincipal } | { ok: false; problem: AdminTokenProblem };

export const ADMIN_REALM = 'hub-admin';
export const ADMIN_ROLE = 'hub_admin';
/** Clocks of the minting machine and the Hub may disagree a little; more would stretch every token's life. */
const CLOCK_TOLERANCE_S = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SCHEME = /^Bearer +(\S+) *$/i;

export type AdminKey = NonNullable<Config['admin']['key']>;

function verificationKey(key: AdminKey): KeyObject {
  return key.algorithm === 'HS256' ? createSecretKey(Buffer.from(key.secret, 'utf8')) : createPublicKey(key.publicKey);
}

/**
 * `iat ≤ now (+ tolerance)` and `exp - iat ≤ maxTtlS`: together they bound `exp` to `now + maxTtlS (+ tolerance)`,
 * whatever the token says. A token claiming to be issued in the future could otherwise stretch its life.
 */
function withinLifetime(claims: Record<string, unknown>, maxTtlS: number, now: () => number): boolean {
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) return false;
  return iat <= Math.floor(now() / 1000) + CLOCK_TOLERANCE_S && exp - iat <= maxTtlS;
}

/** Verifies one admin token: who it speaks for, or why it is refused. */
export function createAdminTokenVerifier(
  settings: { key: AdminKey; issuer: string; audience: string; maxTtlS: number },
  now: () => number = Date.now,
): (token: string) => AdminTokenCheck {
  const key = verificationKey(settings.key); // parsed once: a bad PEM fails at start-up, not per request
  const options = {
    algorithms: [settings.key.algorithm],
    issuer: settings.issuer,
    audience: settings.audience,
    clockTolerance: CLOCK_TOLERANCE_S,
  };
  return (token) => {
    let payload: unknown;
    try {
      payload = jwt.verify(token, key, { ...options, clockTimestamp: Math.floor(now() / 1000) });
    } catch (err) {
      return { ok: false, problem: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
    }
    if (typeof payload !== 'object' || payload === null) return { ok: false, problem: 'invalid' };
    const claims = payload as Record<string, unknown>;
    if (!withinLifetime(claims, settings.maxTtlS, now)) return { ok: false, problem: 'lifetime' };
    // `sub` only names the person for the audit trail; it grants nothing. Bounded and printable, as it is stored.
    const sub = typeof claims.sub === 'string' && /^[^\p{Cc}]{1,255}$/u.test(claims.sub) ? { sub: claims.sub } : {};
    if (claims.role === ADMIN_ROLE) return { ok: true, principal: { kind: 'admin', ...sub } };
    if (typeof claims.customer_id === 'string' && UUID.test(claims.customer_id)) {
      return { ok: true, principal: { kind: 'customer', customerId: claims.customer_id.toLowerCase(), ...sub } };
    }
    return { ok: false, problem: 'no_access' };
  };
}

// RFC 6750 §3.1: a request without credentials gets the bare challenge; a refused token gets error="invalid_token".
const challenge = (tokenRefused: boolean) => ({
  'WWW-Authenticate': tokenRefused ? `Bearer realm="${ADMIN_REALM}", error="invalid_token"` : `Bearer realm="${ADMIN_REALM}"`,
});
const unauthorized = (message: string, tokenRefused = true) => new HubFailure(hubError('UNAUTHORIZED', message, { headers: challenge(tokenRefused) }));

/** Authenticates an admin API request and stores the caller on res.locals.admin. */
export function adminJwtAuth(settings: Config['admin']): RequestHandler {
  const { key } = settings;
  if (key === null) {
    const disabled = unauthorized(
      'The admin API is not enabled on this Hub; set HUB_ADMIN_JWT_SECRET (HS256) or HUB_ADMIN_JWT_PUBLIC_KEY (RS256) to enable it',
      false,
    );
    return (_req, _res, next) => next(disabled);
  }
  const verify = createAdminTokenVerifier({ key, issuer: settings.issuer, audience: settings.audience, maxTtlS: settings.maxTtlS });
  const refusal = (problem: AdminTokenProblem): HubFailure => {
    switch (problem) {
      case 'no_access':
        return new HubFailure(hubError('FORBIDDEN', 'This admin token grants no access: it has neither role "hub_admin" nor a customer_id'));
      case 'lifetime':
        return unauthorized(
          `The admin token must carry iat (not in the future) and exp at most ${settings.maxTtlS} seconds after it (HUB_ADMIN_JWT_MAX_TTL_S)`,
        );
      case 'expired':
        return unauthorized('The admin token has expired');
      case 'invalid':
        return unauthorized('The admin token is invalid');
      default: {
        const unreachable: never = problem;
        throw new Error(`unknown admin token problem ${String(unreachable)}`);
      }
    }
  };

  return (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined || header === '') {
      next(unauthorized('Missing Authorization header; send "Authorization: Bearer <admin token>"', false));
      return;
    }
    const match = SCHEME.exec(header);
    if (!match) {
      next(unauthorized('Malformed Authorization header; expected the Bearer scheme: "Bearer <admin token>"'));
      return;
    }
    // Why a token was refused stays vague on purpose (beyond expired vs invalid): no oracle for forgers. The
    // lifetime and access problems are named, since only a correctly signed token gets that far.
    const check = verify(match[1]!);
    if (!check.ok) {
      next(refusal(check.problem));
      return;
    }
    res.locals.admin = check.principal;
    next();
  };
}
