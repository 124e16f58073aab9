import type { DatabaseEnv } from './database';
import type { RedisEnv } from './redis';
import { type EnvOf, integer } from './variables';

export interface ProcessesConfig {
  /** Processes serving on this machine (node:cluster; src/cluster.ts): 1 = this process serves itself. */
  processes: number;
}

export const processesVariables = {
  HUB_PROCESSES: integer(1, 1, 256).describe(
    "Hub processes on this machine (node:cluster, one per core: `nproc`), sharing the port; more than 1 needs DATABASE_URL and REDIS_URL (embedded PGlite is one process's). Limits without Redis count each process as a replica.",
  ),
  HUB_REPLICAS: integer(1, 1, 1000).describe(
    "Replicas sharing the limits: when Redis is unreachable each replica's in-memory limiter allows 1/HUB_REPLICAS of every limit.",
  ),
};

export type ProcessesEnv = EnvOf<typeof processesVariables>;

/** Replicas sharing a limit: each process of each replica counts, since without Redis each keeps its own count. */
export const replicasOf = (e: ProcessesEnv): number => e.HUB_REPLICAS * e.HUB_PROCESSES;

/**
 * Several processes (HUB_PROCESSES) share what one process would keep to itself: the database (embedded PGlite
 * is a single process's files) and, through Redis, limits, idempotency records and connection-cache invalidation.
 */
function processProblems(e: ProcessesEnv & Pick<DatabaseEnv, 'DATABASE_URL'> & Pick<RedisEnv, 'REDIS_URL'>): string[] {
  if (e.HUB_PROCESSES === 1) return [];
  const problems: string[] = [];
  if (!e.DATABASE_URL) problems.push(`HUB_PROCESSES: ${e.HUB_PROCESSES} processes need DATABASE_URL (PostgreSQL); embedded PGlite runs in one process only`);
  if (!e.REDIS_URL)
    problems.push(`HUB_PROCESSES: ${e.HUB_PROCESSES} processes need REDIS_URL, which shares limits, idempotency records and connection changes between them`);
  return problems;
}

export const processesSection = {
  variables: processesVariables,
  problems: processProblems,
  load: (e: ProcessesEnv): ProcessesConfig => ({ processes: e.HUB_PROCESSES }),
};
