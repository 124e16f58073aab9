import { hkdfSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { EncryptionKey } from '../config';
import { INTEGRATION_IDS, type IntegrationId } from '../core/integrations';
import { INTEGRATIONS } from './catalog';

/**
 * Signed connect links: the `setup_url` an agent can hand to a person. The link is a short-lived HS256 JWT
 * naming exactly one customer, end user (or none) and integration, so whoever opens it can connect that and
 * nothing else. Its key is derived (HKDF) from the Hub's encryption keys — no extra secret to configure — with
 * the key id in `kid`, so links made before a key rotation still open until they expire.
 *
 * A link says who made it (`src`): `setup` links are handed to agents (errors, status) and travel through
 * transcripts and chats, so they live shorter (HUB_SETUP_URL_TTL_S) than `admin` links; only an admin link can
 * carry the `replace` intent (`rpl`) that lets it connect a different account than the one connected.
 * Links are single-use: the flow records the `jti` once a connection is stored (connect-flow.ts).
 *
 * A link opens at its provider's connect route (`/integrations/google/connect`, `/integrations/microsoft/connect`);
 * every link is signed for one audience, Google's path (the first route, kept so that links made before Microsoft
 * existed still open), and either route accepts any link: the integration in the link decides the provider.
 */

export interface ConnectTarget {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  /** Where to send the person when the flow ends; already checked against the allow-list when the link was made. */
  returnUrl: string | null;
}

/** Who made a link: the Hub for an agent (`setup_url`), or an admin through the admin API. */
export type LinkOrigin = 'setup' | 'admin';

export interface LinkIssue extends ConnectTarget {
  origin: LinkOrigin;
  /** May connect another account than the one connected now; admin links only. */
  replace: boolean;
}

export interface ConnectLink extends LinkIssue {
  /** The link's own id (jti), bound into the OAuth state it starts, and recorded once the link is used. */
  linkId: string;
  expiresAt: Date;
}

/** `unknown_key`: signed with an encryption key no longer configured (removed after a rotation). */
export type LinkProblem = 'expired' | 'invalid' | 'unknown_key';

export interface ConnectLinks {
  create(issue: LinkIssue): { url: string; expiresAt: Date; linkId: string };
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
  /** Absent on links made before origins existed: those count as setup links. */
  src?: LinkOrigin;
  rpl?: true;
  jti: string;
  exp: number;
}

function readClaims(payload: unknown): LinkClaims | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const ok =
    typeof p.sub === 'string' &&
    UUID.test(p.sub) &&
    (p.uid === undefined || (typeof p.uid === 'string' && p.uid.length > 0 && p.uid.length <= 255)) &&
    typeof p.int === 'string' &&
    (INTEGRATION_IDS as readonly string[]).includes(p.int) &&
    (p.ret === undefined || typeof p.ret === 'string') &&
    (p.src === undefined || p.src === 'setup' || p.src === 'admin') &&
    (p.rpl === undefined || (p.rpl === true && p.src === 'admin')) &&
    typeof p.jti === 'string' &&
    UUID.test(p.jti) &&
    typeof p.exp === 'number';
  return ok ? (p as unknown as LinkClaims) : null;
}

export function createConnectLinks(options: {
  publicUrl: string;
  encryptionKeys: readonly EncryptionKey[];
  /** Lifetime per origin (HUB_SETUP_URL_TTL_S, HUB_CONNECT_LINK_TTL_S). */
  ttlS: Record<LinkOrigin, number>;
  now?: () => number;
}): ConnectLinks {
  const now = options.now ?? Date.now;
  const keys = new Map(options.encryptionKeys.map((k) => [k.id, deriveKey(k.key)]));
  const current = options.encryptionKeys[0]!; // the first configured key seals new data (token-cipher.ts)
  const signingKey = keys.get(current.id)!;
  const connectUrl = `${options.publicUrl}/integrations/google/connect`;
  const urlFor = (integration: IntegrationId) => `${options.publicUrl}/integrations/${INTEGRATIONS[integration].provider}/connect`;
  const issuer = options.publicUrl;

  return {
    create(issue) {
      if (issue.replace && issue.origin !== 'admin') throw new Error('only admin links may replace a connected account');
      const iat = Math.floor(now() / 1000);
      const exp = iat + options.ttlS[issue.origin];
      const linkId = randomUUID();
      const claims = {
        sub: issue.customerId,
        ...(issue.userId !== null ? { uid: issue.userId } : {}),
        int: issue.integration,
        ...(issue.returnUrl !== null ? { ret: issue.returnUrl } : {}),
        src: issue.origin,
        ...(issue.replace ? { rpl: true } : {}),
        jti: linkId,
        iat,
        exp,
      };
      const token = jwt.sign(claims, signingKey, { algorithm: ALGORITHM, keyid: current.id, audience: connectUrl, issuer });
      const url = new URL(urlFor(issue.integration));
      url.searchParams.set('token', token);
      return { url: url.toString(), expiresAt: new Date(exp * 1000), linkId };
    },

    verify(token) {
      const decoded = jwt.decode(token, { complete: true });
      const kid = decoded?.header.kid;
      if (!decoded || decoded.header.alg !== ALGORITHM || typeof kid !== 'string') return { ok: false, problem: 'invalid' };
      const key = keys.get(kid);
      // A well-formed kid the Hub does not know: most likely a key removed after a rotation (or a forgery —
      // either way nothing opens; the page only words it differently).
      if (!key) return { ok: false, problem: /^[A-Za-z0-9_-]{1,32}$/.test(kid) ? 'unknown_key' : 'invalid' };
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
            origin: claims.src ?? 'setup',
            replace: claims.rpl === true,
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
