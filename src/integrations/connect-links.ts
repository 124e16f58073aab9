import { hkdfSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { EncryptionKey } from '../config';
import { INTEGRATION_IDS, type IntegrationId } from './integrations';

/**
 * Signed connect links: the `setup_url` an agent can hand to a person. The link is a short-lived HS256 JWT
 * naming exactly one customer, end user (or none) and integration, so whoever opens it can connect that and
 * nothing else. Its key is derived (HKDF) from the Hub's encryption keys — no extra secret to configure — with
 * the key id in `kid`, so links made before a key rotation still open until they expire.
 */

export interface ConnectTarget {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  /** Where to send the person when the flow ends; already checked against the allow-list when the link was made. */
  returnUrl: string | null;
}

export interface ConnectLink extends ConnectTarget {
  /** The link's own id (jti), bound into the OAuth state it starts. */
  linkId: string;
  expiresAt: Date;
}

export type LinkProblem = 'expired' | 'invalid';

export interface ConnectLinks {
  create(target: ConnectTarget): { url: string; expiresAt: Date };
  verify(token: string): { ok: true; link: ConnectLink } | { ok: false; problem: LinkProblem };
}

const PURPOSE = 'hub-connect-link-v1';
const ALGORITHM = 'HS256';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const deriveKey = (key: Buffer) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), PURPOSE, 32));

interface LinkClaims {
  sub: string;
  uid?: string;
  int: string;
  ret?: string;
  jti: string;
  exp: number;
}

function readClaims(payload: unknown): LinkClaims | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const ok =
    typeof p.sub === 'string' && UUID.test(p.sub) &&
    (p.uid === undefined || (typeof p.uid === 'string' && p.uid.length > 0 && p.uid.length <= 255)) &&
    typeof p.int === 'string' && (INTEGRATION_IDS as readonly string[]).includes(p.int) &&
    (p.ret === undefined || typeof p.ret === 'string') &&
    typeof p.jti === 'string' && typeof p.exp === 'number';
  return ok ? (p as unknown as LinkClaims) : null;
}

export function createConnectLinks(options: {
  publicUrl: string;
  encryptionKeys: readonly EncryptionKey[];
  ttlS: number;
  now?: () => number;
}): ConnectLinks {
  const now = options.now ?? Date.now;
  const keys = new Map(options.encryptionKeys.map((k) => [k.id, deriveKey(k.key)]));
  const current = options.encryptionKeys[0]!; // the first configured key seals new data (token-cipher.ts)
  const signingKey = keys.get(current.id)!;
  const connectUrl = `${options.publicUrl}/integrations/google/connect`;
  const issuer = options.publicUrl;

  return {
    create(target) {
      const iat = Math.floor(now() / 1000);
      const exp = iat + options.ttlS;
      const claims = {
        sub: target.customerId,
        ...(target.userId !== null ? { uid: target.userId } : {}),
        int: target.integration,
        ...(target.returnUrl !== null ? { ret: target.returnUrl } : {}),
        jti: randomUUID(),
        iat,
        exp,
      };
      const token = jwt.sign(claims, signingKey, { algorithm: ALGORITHM, keyid: current.id, audience: connectUrl, issuer });
      const url = new URL(connectUrl);
      url.searchParams.set('token', token);
      return { url: url.toString(), expiresAt: new Date(exp * 1000) };
    },

    verify(token) {
      const decoded = jwt.decode(token, { complete: true });
      const kid = decoded?.header.kid;
      const key = kid === undefined ? undefined : keys.get(kid);
      if (!decoded || decoded.header.alg !== ALGORITHM || !key) return { ok: false, problem: 'invalid' };
      try {
        const payload = jwt.verify(token, key, {
          algorithms: [ALGORITHM],
          audience: connectUrl,
          issuer,
          clockTimestamp: Math.floor(now() / 1000),
        });
        const claims = readClaims(payload);
        if (!claims) return { ok: false, problem: 'invalid' };
        return {
          ok: true,
          link: {
            customerId: claims.sub,
            userId: claims.uid ?? null,
            integration: claims.int as IntegrationId,
            returnUrl: claims.ret ?? null,
            linkId: claims.jti,
            expiresAt: new Date(claims.exp * 1000),
          },
        };
      } catch (err) {
        return { ok: false, problem: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
      }
    },
  };
}
