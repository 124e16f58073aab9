import type { Logger } from '../logger';
import { type Db, isDatabaseUnavailable } from '../store/db';

/**
 * HUB_AUDIT_RETENTION_DAYS: receipts, connection events and webhook deliveries older than that are deleted, in
 * batches of PURGE_BATCH rows with a pause between them, so a purge never holds long locks or starves the
 * Hub's own queries. Every replica runs it (on a timer, first shortly after start); concurrent purges only
 * share the work.
 */
const PURGE_BATCH = 500;
const PAUSE_MS = 20;
/** Per run and table; what is left waits for the next run. */
const MAX_BATCHES_PER_RUN = 200;
const FIRST_RUN_MS = 60_000;

const TABLES = [
  { table: 'audit_receipts', column: 'started_at' },
  { table: 'audit_connection_events', column: 'at' },
  { table: 'webhook_outbox', column: 'created_at' }, // its attempts go with it (ON DELETE CASCADE)
] as const;

export function createRetention(deps: { db: Db; logger: Logger; retentionDays: number; intervalMs: number; now: () => number }) {
  let running: Promise<Record<string, number>> | null = null;
  let stopped = false;

  async function run(): Promise<Record<string, number>> {
    const cutoff = new Date(deps.now() - deps.retentionDays * 86_400_000);
    const deleted: Record<string, number> = {};
    for (const { table, column } of TABLES) {
      deleted[table] = 0;
      for (let i = 0; i < MAX_BATCHES_PER_RUN && !stopped; i++) {
        const rows = await deps.db.query<{ id: string }>(
          `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${column} < $1 ORDER BY ${column} LIMIT ${PURGE_BATCH}) RETURNING id`,
          [cutoff],
        );
        deleted[table] += rows.length;
        if (rows.length < PURGE_BATCH) break;
        await new Promise((r) => setTimeout(r, PAUSE_MS));
      }
    }
    const total = Object.values(deleted).reduce((a, b) => a + b, 0);
    if (total > 0) deps.logger.info({ deleted, retention_days: deps.retentionDays }, 'audit retention: old rows purged');
    return deleted;
  }

  const purge = () =>
    (running ??= run().finally(() => {
      running = null;
    }));

  const tick = () => {
    purge().catch((err: unknown) => {
      if (isDatabaseUnavailable(err)) deps.logger.warn({ err }, 'audit retention: database unavailable; next run later');
      else deps.logger.error({ err }, 'audit retention purge failed');
    });
  };
  const first = setTimeout(tick, Math.min(FIRST_RUN_MS, deps.intervalMs));
  const timer = setInterval(tick, deps.intervalMs);
  first.unref();
  timer.unref();

  return {
    purge,
    stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
