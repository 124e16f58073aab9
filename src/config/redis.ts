import { type EnvOf, integer, optionalString, url } from './variables';

export interface RedisConfig {
  redisUrl: string | undefined;
  /** Heartbeat and reconnection check of the Redis breaker. */
  redisProbeIntervalMs: number;
}

export const redisVariables = {
  REDIS_URL: optionalString
    .pipe(url(['redis:', 'rediss:'], 'redis').optional())
    .describe('`redis://…` for state shared by replicas: rate limits, idempotency records, the token-refresh lock, cache invalidation (readiness checks it).'),
  HUB_REDIS_PROBE_INTERVAL_MS: integer(1_000, 100, 60_000).describe(
    'How often Redis is PINGed: a heartbeat while it answers, a reconnection check while it does not (ms).',
  ),
};

export type RedisEnv = EnvOf<typeof redisVariables>;

export const redisSection = {
  variables: redisVariables,
  load: (e: RedisEnv): RedisConfig => ({ redisUrl: e.REDIS_URL, redisProbeIntervalMs: e.HUB_REDIS_PROBE_INTERVAL_MS }),
};
