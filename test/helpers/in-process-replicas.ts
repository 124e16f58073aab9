import type { Redis } from 'ioredis';
import { openPostgres } from '../../src/store/postgres';
import { openRedis } from '../../src/store/redis';
import { type TestDb, openTestDb } from './db';
import { services } from './env';
import { type TestHub, buildTestHub } from './hub';
import { captureLogs } from './logs';

/**
 * Replicas of the Hub inside the test process, for a describe block that needs PostgreSQL and Redis: each one its
 * own Redis connection and database pool, all on one database of the block's own, as separate processes would be.
 * Everything opened is closed after the block. `env` is read when a replica starts (after the block's beforeAll).
 */
export function useInProcessReplicas(env: () => Record<string, string>): { replica(): Promise<TestHub> } {
  const { redisUrl } = services();
  let testDb: TestDb;
  const opened: { redis: Redis[]; hubs: TestHub[] } = { redis: [], hubs: [] };
  beforeAll(async () => {
    testDb = await openTestDb('postgres');
  });
  afterAll(async () => {
    for (const hub of opened.hubs) await hub.close();
    for (const redis of opened.redis) await redis.quit();
    await testDb?.drop();
  });
  return {
    async replica() {
      const redis = await openRedis(redisUrl!, captureLogs().logger);
      opened.redis.push(redis);
      const db = openPostgres({ url: testDb.url!, poolMax: 5, logger: captureLogs().logger });
      const hub = await buildTestHub({ db, redis, env: env() });
      opened.hubs.push(hub);
      return hub;
    },
  };
}
