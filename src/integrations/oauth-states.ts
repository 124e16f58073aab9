import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db';
import type { TokenCipher } from '../store/token-cipher';
import type { ConnectLink } from './connect-links';
import type { IntegrationId } from './integrations';

/**
 * Server-side OAuth state for connect attempts (table oauth_states). `begin` makes a fresh state, PKCE verifier
 * and browser nonce; `consume` hands a state's attempt back exactly once (DELETE … RETURNING: two callbacks
 * racing with the same state cannot both win), or says why it cannot.
 */

export const STATE_LIFETIME_MS = 10 * 60_000;

export interface PendingConnect {
  linkId: string;
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  returnUrl: string | null;
  codeVerifier: string;
  /** The browser nonce's digest, compared with the cookie the callback arrives with. */
  browserHash: Buffer;
}

export interface BegunConnect {
  state: string;
  codeVerifier: string;
  codeChallenge: string;
  /** Goes into an HttpOnly cookie; the callback must come back from the same browser. */
  browserNonce: string;
}

export type ConsumeResult = { ok: true; pending: PendingConnect } | { ok: false; problem: 'unknown' | 'expired' };

export interface OAuthStates {
  begin(link: ConnectLink): Promise<BegunConnect>;
  consume(state: string): Promise<ConsumeResult>;
}

export const digest = (value: string) => createHash('sha256').update(value).digest();
const token = () => randomBytes(32).toString('base64url');
const aad = (stateHash: Buffer) => `hub-pkce-v1:${stateHash.toString('hex')}`;

interface StateRow {
  browser_hash: Uint8Array;
  link_id: string;
  customer_id: string;
  user_id: string | null;
  integration: IntegrationId;
  return_url: string | null;
  key_id: string;
  code_verifier_enc: Uint8Array;
  expires_at: Date;
}

export function createOAuthStates(db: Db, cipher: TokenCipher, now: () => number = Date.now): OAuthStates {
  let inserts = 0;
  return {
    async begin(link) {
      const state = token();
      const codeVerifier = token(); // 43 characters of base64url: RFC 7636's minimum length, 256 bits
      const browserNonce = token();
      const stateHash = digest(state);
      // Unconsumed attempts pile up when people close the tab; every 50th insert sweeps a bounded batch.
      if (++inserts % 50 === 1) {
        await db.query(
          `DELETE FROM oauth_states WHERE state_hash IN
             (SELECT state_hash FROM oauth_states WHERE expires_at < $1 LIMIT 500)`,
          [new Date(now())],
        );
      }
      await db.query(
        `INSERT INTO oauth_states (state_hash, browser_hash, link_id, customer_id, user_id, integration, return_url,
           key_id, code_verifier_enc, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          stateHash,
          digest(browserNonce),
          link.linkId,
          link.customerId,
          link.userId,
          link.integration,
          link.returnUrl,
          cipher.currentKeyId,
          cipher.encrypt(codeVerifier, aad(stateHash)),
          new Date(now() + STATE_LIFETIME_MS),
        ],
      );
      return { state, codeVerifier, codeChallenge: digest(codeVerifier).toString('base64url'), browserNonce };
    },

    async consume(state) {
      const stateHash = digest(state);
      const rows = await db.query<StateRow>(
        `DELETE FROM oauth_states WHERE state_hash = $1
         RETURNING browser_hash, link_id, customer_id, user_id, integration, return_url, key_id, code_verifier_enc, expires_at`,
        [stateHash],
      );
      const row = rows[0];
      if (!row) return { ok: false, problem: 'unknown' };
      if (row.expires_at.getTime() < now()) return { ok: false, problem: 'expired' };
      return {
        ok: true,
        pending: {
          linkId: row.link_id,
          customerId: row.customer_id,
          userId: row.user_id,
          integration: row.integration,
          returnUrl: row.return_url,
          codeVerifier: cipher.decrypt(row.key_id, row.code_verifier_enc, aad(stateHash)),
          browserHash: Buffer.from(row.browser_hash),
        },
      };
    },
  };
}
