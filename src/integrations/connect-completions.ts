import type { Db } from '../store/db';
import type { PendingConnect } from './oauth-states';

/**
 * The last step of a connect attempt, made safe against the two ways it could go wrong: a link used twice, and
 * two attempts for the same connection interleaving between "which account is connected?" and "store the new
 * one" (which would let a second account slip in unseen). `reserve` takes both at once — the link's single use
 * (connect_link_uses) and a short lease on the connection (connect_completions) — in one transaction; `done`
 * keeps the use and ends the lease; `abandon` gives both back, so a refused or failed attempt leaves the link
 * usable. A lease left by a crashed process lapses after `leaseMs` — longer than the slowest step it covers
 * (checking a kept grant with Google, bounded by the tool deadline).
 */

export type Reservation = 'reserved' | 'link_used' | 'busy';

export interface ConnectCompletions {
  reserve(pending: PendingConnect): Promise<Reservation>;
  /**
   * Stored: the link stays used, the lease ends. The link's other pending attempts stay until they lapse, so
   * a person finishing one of them is told the link was used rather than that the attempt is unknown.
   */
  done(pending: PendingConnect): Promise<void>;
  /** Nothing stored: the link may be used again, the lease ends. */
  abandon(pending: PendingConnect): Promise<void>;
}

/** One text key per connection (customer, end user or customer-wide, integration). */
const connectionKey = (p: PendingConnect) => JSON.stringify([p.customerId, p.userId, p.integration]);

export function createConnectCompletions(db: Db, options: { leaseMs: number }, now: () => number = Date.now): ConnectCompletions {
  const release = (p: PendingConnect) => db.query('DELETE FROM connect_completions WHERE connection = $1 AND link_id = $2', [connectionKey(p), p.linkId]);

  return {
    reserve: (p) =>
      db.transaction(async (tx) => {
        const at = new Date(now());
        // A link lives at most a week (HUB_CONNECT_LINK_TTL_S); without a recorded expiry, keep its use that long.
        const linkExpires = p.linkExpiresAt ?? new Date(now() + 7 * 86_400_000);
        const used = await tx.query(
          `INSERT INTO connect_link_uses (link_id, customer_id, integration, expires_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (link_id) DO NOTHING RETURNING link_id`,
          [p.linkId, p.customerId, p.integration, linkExpires],
        );
        if (used.length === 0) return 'link_used';
        await tx.query('DELETE FROM connect_completions WHERE connection = $1 AND lease_until < $2', [connectionKey(p), at]);
        const leased = await tx.query(
          `INSERT INTO connect_completions (connection, link_id, lease_until) VALUES ($1, $2, $3)
           ON CONFLICT (connection) DO NOTHING RETURNING link_id`,
          [connectionKey(p), p.linkId, new Date(now() + options.leaseMs)],
        );
        if (leased.length === 0) {
          await tx.query('DELETE FROM connect_link_uses WHERE link_id = $1', [p.linkId]);
          return 'busy';
        }
        return 'reserved';
      }),

    async done(p) {
      await release(p);
    },

    async abandon(p) {
      await db.query('DELETE FROM connect_link_uses WHERE link_id = $1', [p.linkId]);
      await release(p);
    },
  };
}
