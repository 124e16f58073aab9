import type { Db } from './db';

/**
 * The webhook outbox as the metrics see it: deliveries waiting (due now or waiting out a retry's backoff), and
 * how long the oldest one that is due has been (0 when none is): a dispatcher that keeps up holds it near its
 * poll interval, whatever the receivers answer. Both read through the outbox's partial index on pending rows.
 */
export async function webhookBacklog(db: Db): Promise<{ pending: number; overdueSeconds: number }> {
  const [row] = await db.query<{ pending: string | number; overdue: string | number | null }>(
    `SELECT count(*) AS pending,
            EXTRACT(EPOCH FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())) AS overdue
       FROM webhook_outbox WHERE state = 'pending'`,
  );
  return { pending: Number(row?.pending ?? 0), overdueSeconds: Math.max(0, Number(row?.overdue ?? 0)) };
}
