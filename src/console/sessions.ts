import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AdminPrincipal } from '../auth/admin-access';
import type { Db } from '../store/db';

/**
 * Server-side sessions of the admin console, in PostgreSQL (any replica serves any request). The cookie holds
 * 32 random bytes; the table holds only their SHA-256, so reading the table signs nobody in. A session ends at
 * the first of: sign-out, `idleS` without a request, `maxS` after it started (absolute lifetime).
 *
 * The CSRF token is an HMAC of the session's secret (the OWASP "HMAC-based token" pattern): nothing more to
 * store, different per session, and useless without the HttpOnly cookie it derives from.
 */

export const SESSION_COOKIE = 'hub_admin_session';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** last_seen_at is written at most this often: the idle clock needs minutes, not a write per request. */
const TOUCH_EVERY_MS = 60_000;

export interface Session {
  principal: AdminPrincipal;
  csrfToken: string;
  /** Sign-in method, shown on the page ("link", "jwt"). */
  method: string;
  expiresAt: Date;
}

export interface Sessions {
  /** Records a sign-in link as used; false when it was used before (single use). */
  redeemLink(linkHash: Buffer, expiresAt: Date): Promise<boolean>;
  start(principal: AdminPrincipal, method: string): Promise<{ token: string; session: Session }>;
  /** The live session a cookie value names, or null (unknown, idle too long, or past its absolute lifetime). */
  resolve(token: string): Promise<Session | null>;
  end(token: string): Promise<void>;
  readonly settings: { idleS: number; maxS: number };
}

const hashOf = (token: string) => createHash('sha256').update(token).digest();
export const csrfTokenFor = (token: string) => createHmac('sha256', token).update('hub-admin-csrf-v1').digest('base64url');

/** Constant-time comparison of the header's CSRF token with the session's. */
export function csrfMatches(session: Session, header: string | undefined): boolean {
  if (header === undefined) return false;
  const given = Buffer.from(header);
  const expected = Buffer.from(session.csrfToken);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Row {
  principal: 'admin' | 'customer';
  customer_id: string | null;
  method: string;
  last_seen_at: Date;
  expires_at: Date;
}

export function createSessions(db: Db, settings: { idleS: number; maxS: number }, now: () => number = Date.now): Sessions {
  const toSession = (token: string, row: Row): Session => ({
    principal: row.principal === 'admin' ? { kind: 'admin' } : { kind: 'customer', customerId: row.customer_id! },
    csrfToken: csrfTokenFor(token),
    method: row.method,
    expiresAt: new Date(row.expires_at),
  });
  return {
    settings,
    async redeemLink(linkHash, expiresAt) {
      const at = new Date(now());
      await db.query('DELETE FROM admin_sign_in_uses WHERE expires_at < $1', [at]);
      const rows = await db.query(
        'INSERT INTO admin_sign_in_uses (link_hash, used_at, expires_at) VALUES ($1, $2, $3) ON CONFLICT (link_hash) DO NOTHING RETURNING link_hash',
        [linkHash, at, expiresAt],
      );
      return rows.length === 1;
    },

    async start(principal, method) {
      const at = new Date(now());
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(at.getTime() + settings.maxS * 1000);
      // Sessions that ended on their own go when new ones start: the table stays as small as the live set.
      await db.query('DELETE FROM admin_sessions WHERE expires_at < $1 OR last_seen_at < $2', [at, new Date(at.getTime() - settings.idleS * 1000)]);
      await db.query(
        'INSERT INTO admin_sessions (id_hash, principal, customer_id, method, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $5, $6)',
        [hashOf(token), principal.kind, principal.kind === 'customer' ? principal.customerId : null, method, at, expiresAt],
      );
      return { token, session: { principal, csrfToken: csrfTokenFor(token), method, expiresAt } };
    },

    async resolve(token) {
      if (!TOKEN.test(token)) return null;
      const at = now();
      const idHash = hashOf(token);
      const rows = await db.query<Row>(
        'SELECT principal, customer_id, method, last_seen_at, expires_at FROM admin_sessions WHERE id_hash = $1 AND expires_at > $2 AND last_seen_at > $3',
        [idHash, new Date(at), new Date(at - settings.idleS * 1000)],
      );
      const row = rows[0];
      if (!row) return null;
      if (at - new Date(row.last_seen_at).getTime() >= TOUCH_EVERY_MS) {
        await db.query('UPDATE admin_sessions SET last_seen_at = $2 WHERE id_hash = $1', [idHash, new Date(at)]);
      }
      return toSession(token, row);
    },

    async end(token) {
      if (!TOKEN.test(token)) return;
      await db.query('DELETE FROM admin_sessions WHERE id_hash = $1', [hashOf(token)]);
    },
  };
}

/** The session cookie's value from a Cookie header, if it has the right shape. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return TOKEN.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** HttpOnly, SameSite=Strict, Secure when the Hub is served over https; for the whole site (pages and the API). */
export function sessionCookie(token: string, maxAgeS: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export const clearSessionCookie = (secure: boolean) => `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
