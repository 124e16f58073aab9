import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db';
import { DecryptionError, type TokenCipher } from '../store/token-cipher';
import type { ConnectLink } from './connect-links';
import type { IntegrationId } from '../core/integrations';

/**
 * Server-side OAuth state for connect attempts (table oauth_states). `begin` makes a fresh state, PKCE verifier
 * and browser nonce — unless the link was already used, or it (or the client's address) already has as many
 * live attempts as allowed: opening one link 3,000 times must not make 3,000 rows. `consume` hands a state's
 * attempt back exactly once (DELETE … RETURNING: two callbacks racing with the same state cannot both win), or
 * says why it cannot; it also says whether the attempt's link connected an account meanwhile (links are
 * single-use, so such an attempt must not finish).
 */

export const STATE_LIFETIME_MS = 10 * 60_000;

export interface PendingConnect {
  linkId: string;
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  returnUrl: string | null;
  /** The link was made by an admin with the `replace` intent: it may connect a different account. */
  replace: boolean;
  /** When the link itself expires (null for attempts begun before this was recorded). */
  linkExpiresAt: Date | null;
  /** Another attempt of the same link has connected an account since this one began: it must not finish. */
  linkUsed: boolean;
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

export type BeginResult = { ok: true; begun: BegunConnect } | { ok: false; problem: 'link_used' | 'too_many_for_link' | 'too_many_for_address' };

/** `unreadable`: sealed with an encryption key that is no longer configured (removed mid-attempt). */
export type ConsumeResult = { ok: true; pending: PendingConnect } | { ok: false; problem: 'unknown' | 'expired' | 'unreadable' };

export interface OAuthStates {
  begin(link: ConnectLink, clientAddress: string): Promise<BeginResult>;
  consume(state: string): Promise<ConsumeResult>;
}

export interface AttemptLimits {
  /** Live attempts one link may have (HUB_CONNECT_ATTEMPTS_PER_LINK). */
  perLink: number;
  /** Live attempts one client address may have across links (HUB_CONNECT_ATTEMPTS_PER_ADDRESS). */
  perAddress: number;
}

export const digest = (value: string) => createHash('sha256').update(value).digest();
const token = () => randomBytes(32).toString('base64url');
const aad = (stateHash: Buffer) => `hub-pkce-v1:${stateHash.toString('hex')}`;
/** The seal's associated data for a stored state, as key rotation re-seals it (it only knows the digest). */
export const stateAad = aad;

interface AttemptCount {
  per_link: number;
  per_address: number;
  used: boolean;
  inserted: number;
}

interface StateRow {
  browser_hash: Uint8Array;
  link_id: string;
  customer_id: string;
  user_id: string | null;
  integration: IntegrationId;
  return_url: string | null;
  replace_account: boolean;
  link_expires_at: Date | null;
  key_id: string;
  code_verifier_enc: Uint8Array;
  expires_at: Date;
  link_used: boolean;
}

/** CTEs: the live attempts of a link and of a client address at a time (placeholders given), and whether the link was used. */
const liveAttempts = (link: string, client: string, at: string) => `
live AS (
  SELECT count(*) FILTER (WHERE link_id = ${link}::uuid)::int AS per_link,
         count(*) FILTER (WHERE client_hash = ${client}::bytea)::int AS per_address
    FROM oauth_states
   WHERE expires_at > ${at}::timestamptz AND (link_id = ${link}::uuid OR client_hash = ${client}::bytea)
), used AS (
  SELECT EXISTS (SELECT 1 FROM connect_link_uses WHERE link_id = ${link}::uuid) AS used
)`;

// A cheap read first: an open that is refused anyway (the flood case) costs one query and takes no lock.
const CHECK = `WITH ${liveAttempts('$1', '$2', '$3')} SELECT live.per_link, live.per_address, used.used, 0 AS inserted FROM live, used`;

// Then one statement counts again and inserts only if the limits and the link allow it, under transaction-scoped
// advisory locks on the link and on the address (always in that order, so two opens cannot deadlock): concurrent
// opens cannot overshoot a limit.
const LOCK_SPACE = 0x0c0e; // first key of the two-key advisory locks; the migration lock uses the one-key form
const BEGIN = `
WITH ${liveAttempts('$3', '$11', '$14')}, inserted AS (
  INSERT INTO oauth_states (state_hash, browser_hash, link_id, customer_id, user_id, integration, return_url,
    key_id, code_verifier_enc, expires_at, client_hash, replace_account, link_expires_at)
  SELECT $1::bytea, $2::bytea, $3::uuid, $4::uuid, $5::text, $6::text, $7::text, $8::text, $9::bytea,
         $10::timestamptz, $11::bytea, $12::boolean, $13::timestamptz
    FROM live, used
   WHERE NOT used.used AND live.per_link < $15::int AND live.per_address < $16::int
  RETURNING 1
)
SELECT live.per_link, live.per_address, used.used, (SELECT count(*)::int FROM inserted) AS inserted FROM live, used`;

const CONSUME = `
WITH gone AS (
  DELETE FROM oauth_states WHERE state_hash = $1
  RETURNING browser_hash, link_id, customer_id, user_id, integration, return_url, replace_account, link_expires_at,
            key_id, code_verifier_enc, expires_at
)
SELECT gone.*, EXISTS (SELECT 1 FROM connect_link_uses u WHERE u.link_id = gone.link_id) AS link_used FROM gone`;

export function createOAuthStates(db: Db, cipher: TokenCipher, limits: AttemptLimits, now: () => number = Date.now): OAuthStates {
  let inserts = 0;
  /** Unconsumed attempts pile up when people close the tab; every 50th open sweeps bounded batches. */
  const sweep = async () => {
    const at = new Date(now());
    await db.query(`DELETE FROM oauth_states WHERE state_hash IN (SELECT state_hash FROM oauth_states WHERE expires_at < $1 LIMIT 500)`, [at]);
    await db.query(`DELETE FROM connect_link_uses WHERE link_id IN (SELECT link_id FROM connect_link_uses WHERE expires_at < $1 LIMIT 500)`, [at]);
    await db.query(`DELETE FROM connect_completions WHERE lease_until < $1`, [at]);
  };

  const refusal = (row: AttemptCount): BeginResult | null => {
    if (row.used) return { ok: false, problem: 'link_used' };
    if (row.per_link >= limits.perLink) return { ok: false, problem: 'too_many_for_link' };
    if (row.per_address >= limits.perAddress) return { ok: false, problem: 'too_many_for_address' };
    return null;
  };

  return {
    async begin(link, clientAddress) {
      if (++inserts % 50 === 1) await sweep();
      // A digest, not the address: enough to count attempts per client, without keeping addresses around.
      const clientHash = digest(`hub-client-v1:${clientAddress}`);
      const [checked] = await db.query<AttemptCount>(CHECK, [link.linkId, clientHash, new Date(now())]);
      const early = refusal(checked!);
      if (early) return early;

      const state = token();
      const codeVerifier = token(); // 43 characters of base64url: RFC 7636's minimum length, 256 bits
      const browserNonce = token();
      const stateHash = digest(state);
      const [row] = await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SPACE, link.linkId]);
        await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SPACE, clientHash.toString('hex')]);
        return tx.query<AttemptCount>(BEGIN, [
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
          clientHash,
          link.replace,
          link.expiresAt,
          new Date(now()),
          limits.perLink,
          limits.perAddress,
        ]);
      });
      if (row!.inserted === 0) return refusal(row!) ?? { ok: false, problem: 'too_many_for_link' };
      return { ok: true, begun: { state, codeVerifier, codeChallenge: digest(codeVerifier).toString('base64url'), browserNonce } };
    },

    async consume(state) {
      const stateHash = digest(state);
      const [row] = await db.query<StateRow>(CONSUME, [stateHash]);
      if (!row) return { ok: false, problem: 'unknown' };
      if (row.expires_at.getTime() < now()) return { ok: false, problem: 'expired' };
      let codeVerifier: string;
      try {
        codeVerifier = cipher.decrypt(row.key_id, row.code_verifier_enc, aad(stateHash));
      } catch (err) {
        if (err instanceof DecryptionError) return { ok: false, problem: 'unreadable' };
        throw err;
      }
      return {
        ok: true,
        pending: {
          linkId: row.link_id,
          customerId: row.customer_id,
          userId: row.user_id,
          integration: row.integration,
          returnUrl: row.return_url,
          replace: row.replace_account,
          linkExpiresAt: row.link_expires_at,
          linkUsed: row.link_used,
          codeVerifier,
          browserHash: Buffer.from(row.browser_hash),
        },
      };
    },
  };
}
