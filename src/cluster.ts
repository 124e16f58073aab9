import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config';
import { createLogger } from './logger';
import { secretLiterals } from './server';
import { migrate } from './store/migrate';
import { openDatabase } from './store/open';

/** A process that dies after it served is replaced after this long (a crash loop costs a fork a second). */
const REPLACE_AFTER_MS = 1_000;

/**
 * HUB_PROCESSES > 1 (one per core): this process becomes node:cluster's primary and serves nothing itself. It
 * applies migrations once (unless a separate `migrate` step owns them), then forks that many Hub processes, each
 * a whole Hub (src/server.ts) with HUB_MIGRATE_ON_START=false: they share the listening port — the primary accepts
 * and hands connections out round-robin (Node's default on Linux) — and PostgreSQL and Redis, as replicas do.
 *
 * A process that dies after it listened is replaced; one that dies before listening is a start failure (schema,
 * port, Redis unreachable…), which stops them all with exit code 1. SIGTERM/SIGINT are passed on: each process
 * drains as a single Hub does (readiness off, grace period, in-flight calls), and the primary exits when the last
 * one has. If the primary itself is killed, Node ends the workers (their IPC channel closes).
 */
export async function runCluster(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel, secrets: secretLiterals(config) });
  if (config.migrateOnStart) {
    const db = await openDatabase(config.database, logger);
    try {
      await migrate(db, logger);
    } finally {
      await db.close();
    }
  }
  const live = new Set<Worker>();
  let stopping = false;
  let failed = false;

  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of live) worker.process.kill(signal);
    if (live.size === 0) process.exit(failed ? 1 : 0);
  };

  const fork = () => {
    const worker = cluster.fork({ HUB_MIGRATE_ON_START: 'false' });
    live.add(worker);
    let listening = false;
    worker.once('listening', () => {
      listening = true;
    });
    worker.once('exit', (code, signal) => {
      live.delete(worker);
      if (code !== 0) failed = failed || stopping || !listening;
      if (stopping) {
        if (live.size === 0) process.exit(failed ? 1 : 0);
        return;
      }
      if (!listening) {
        logger.error({ pid: worker.process.pid, code, signal }, 'a hub process failed to start; stopping the others');
        failed = true;
        stopAll('SIGTERM');
        return;
      }
      logger.error({ pid: worker.process.pid, code, signal }, 'a hub process exited; starting a replacement');
      setTimeout(() => {
        if (!stopping) fork();
      }, REPLACE_AFTER_MS).unref();
    });
  };

  process.once('SIGTERM', () => stopAll('SIGTERM'));
  process.once('SIGINT', () => stopAll('SIGINT'));
  for (let i = 0; i < config.processes; i++) fork();
  logger.info({ processes: config.processes }, 'hub cluster primary: forked the hub processes');
}
