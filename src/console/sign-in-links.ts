import { createHash, hkdfSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AdminPrincipal } from '../auth/admin-access';
import type { EncryptionKey } from '../config';

/**
 * One-time sign-in links to the admin console (`npm run admin-login`). A link is a short-lived HS256 JWT naming
 * who signs in (an operator, or one customer), signed with a key derived (HKDF) from the Hub's encryption keys —
 * as connect links are, so the CLI needs nothing the Hub does not already hold and a key rotation keeps links
 * made just before it working. Single use: redeeming a link records the SHA-256 of its `jti` in PostgreSQL
 * (sessions.ts), so a link opens one session at most, and its lifetime is capped at ten minutes.
 */

export const SIGN_IN_MAX_TTL_S = 600;
const PURPOSE = 'hub-admin-sign-in-v1';
const ALGORITHM = 'HS256';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const deriveKey = (key: Buffer) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), PURPOSE, 32));

export interface SignInLink {
  principal: AdminPrincipal;
  /** The link's id; its digest is what the database remembers once it is used. */
  linkHash: Buffer;
  expiresAt: Date;
}

export type SignInProblem = 'expired' | 'invalid';

export interface SignInLinks {
  create(principal: AdminPrincipal, ttlS: number): { url: string; expiresAt: Date };
  verify(token: string): { ok: true; link: SignInLink } | { ok: false; problem: SignInProblem };
}

export const linkHashOf = (jti: string) => createHash('sha256').update(`${PURPOSE}:${jti}`).digest();

export function createSignInLinks(options: { publicUrl: string; encryptionKeys: readonly EncryptionKey[]; now?: () => number }): SignInLinks {
  const now = options.now ?? Date.now;
  const keys = new Map(options.encryptionKeys.map((k) => [k.id, deriveKey(k.key)]));
  const current = options.encryptionKeys[0]!; // the first configured key seals new data (token-cipher.ts)
  const signInUrl = `${options.publicUrl}/admin/sign-in`;

  return {
    create(principal, ttlS) {
      if (!Number.isInteger(ttlS) || ttlS < 1 || ttlS > SIGN_IN_MAX_TTL_S) throw new Error(`sign-in links live 1..${SIGN_IN_MAX_TTL_S} s`);
      const iat = Math.floor(now() / 1000);
      const exp = iat + ttlS;
      const claims = principal.kind === 'admin' ? { role: 'hub_admin' } : { sub: principal.customerId };
      const token = jwt.sign({ ...claims, jti: randomUUID(), iat, exp }, keys.get(current.id)!, {
        algorithm: ALGORITHM,
        keyid: current.id,
        audience: signInUrl,
        issuer: options.publicUrl,
      });
      const url = new URL(signInUrl);
      url.searchParams.set('token', token);
      return { url: url.toString(), expiresAt: new Date(exp * 1000) };
    },

    verify(token) {
      const decoded = jwt.decode(token, { complete: true });
      const kid = decoded?.header.kid;
      if (!decoded || decoded.header.alg !== ALGORITHM || typeof kid !== 'string') return { ok: false, problem: 'invalid' };
      const key = keys.get(kid);
      if (!key) return { ok: false, problem: 'invalid' };
      let payload: unknown;
      try {
        payload = jwt.verify(token, key, { algorithms: [ALGORITHM], audience: signInUrl, issuer: options.publicUrl, clockTimestamp: Math.floor(now() / 1000) });
      } catch (err) {
        return { ok: false, problem: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
      }
      const p = payload as Record<string, unknown>;
      if (typeof p.jti !== 'string' || !UUID.test(p.jti) || typeof p.exp !== 'number' || typeof p.iat !== 'number') return { ok: false, problem: 'invalid' };
      // A link claiming a longer life than any the CLI makes was not made by it.
      if (p.exp - p.iat > SIGN_IN_MAX_TTL_S) return { ok: false, problem: 'invalid' };
      let principal: AdminPrincipal;
      if (p.role === 'hub_admin' && p.sub === undefined) principal = { kind: 'admin' };
      else if (p.role === undefined && typeof p.sub === 'string' && UUID.test(p.sub)) principal = { kind: 'customer', customerId: p.sub };
      else return { ok: false, problem: 'invalid' };
      return { ok: true, link: { principal, linkHash: linkHashOf(p.jti), expiresAt: new Date(p.exp * 1000) } };
    },
  };
}
