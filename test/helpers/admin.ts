import { type KeyObject, createHmac, createSign } from 'node:crypto';
import { ADMIN_JWT_SECRET } from './env';

/**
 * Admin API tokens for tests, built by hand (not with jsonwebtoken) so a test can also make the tokens a
 * careful library refuses to sign: `alg: none`, HS256 keyed with an RSA public key, no `exp`.
 */

export interface AdminTokenOptions {
  role?: string;
  customer_id?: string;
  /** Seconds since the epoch; null = no exp claim at all. Default: 5 minutes from now. */
  exp?: number | null;
  /** Seconds since the epoch; null = no iat claim at all. Default: now. */
  iat?: number | null;
  aud?: string;
  iss?: string;
  alg?: 'HS256' | 'RS256' | 'none';
  /** HMAC secret (HS256) or private key (RS256); defaults to the test Hub's HUB_ADMIN_JWT_SECRET. */
  key?: string | Buffer | KeyObject;
  /** Any other claims, or overrides. */
  claims?: Record<string, unknown>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

export function adminToken(options: AdminTokenOptions = {}): string {
  const alg = options.alg ?? 'HS256';
  const iat = options.iat === undefined ? now() : options.iat;
  const exp = options.exp === undefined ? now() + 300 : options.exp;
  const payload = {
    iss: options.iss ?? 'hub-admin',
    aud: options.aud ?? 'hub-admin-api',
    ...(iat === null ? {} : { iat }),
    ...(exp === null ? {} : { exp }),
    ...(options.role !== undefined ? { role: options.role } : {}),
    ...(options.customer_id !== undefined ? { customer_id: options.customer_id } : {}),
    ...options.claims,
  };
  const input = `${b64url({ alg, typ: 'JWT' })}.${b64url(payload)}`;
  if (alg === 'none') return `${input}.`;
  const key = options.key ?? ADMIN_JWT_SECRET;
  const signature =
    alg === 'HS256'
      ? createHmac('sha256', key as string | Buffer | KeyObject)
          .update(input)
          .digest('base64url')
      : createSign('RSA-SHA256')
          .update(input)
          .sign(key as string | KeyObject)
          .toString('base64url');
  return `${input}.${signature}`;
}

export const bearer = (token: string) => `Bearer ${token}`;
/** A hub_admin token's Authorization header. */
export const asAdmin = (options: AdminTokenOptions = {}) => bearer(adminToken({ role: 'hub_admin', ...options }));
/** A customer-scoped token's Authorization header. */
export const asCustomer = (customerId: string, options: AdminTokenOptions = {}) => bearer(adminToken({ customer_id: customerId, ...options }));
