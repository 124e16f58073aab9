import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RecentEntry, RecentWrites } from '../core/recent-writes';
import type { Logger } from '../logger';
import { createMemoryRecentWrites, scopedKey } from './recent-writes-memory';
import { type RedisHealth, RedisUnavailableError } from './redis-health';

/**
 * The recent-writes port (src/core/recent-writes.ts) in Redis, so a replica answering right after another one
 * wrote sees that write: a value is a string with PX expiry, a list is one sorted set (members scored by when
 * they were added) — a list read is a single ZRANGEBYSCORE, a push a single MULTI. Keys are hashes of the
 * connection and the fact: they name no one, and one connection's keys cannot be spelled from another's.
 *
 * Every write is also kept in this process's memory (`local`), and reads join both: while Redis is unavailable
 * (its breaker open, or past `timeoutMs`: src/store/redis-health.ts) a replica still sees its own writes, as a
 * single process does, and never waits on Redis longer than a rate-limit charge would.
 */

const PREFIX = 'hub:recent:';

export function createRedisRecentWrites(
  redis: { client: Redis; health: RedisHealth },
  options: { timeoutMs: number; logger: Pick<Logger, 'warn'> },
): RecentWrites {
  const { client, health } = redis;
  const local = createMemoryRecentWrites();
  const keyOf = (scope: Parameters<RecentWrites['get']>[0], key: string) => PREFIX + createHash('sha256').update(scopedKey(scope, key)).digest('base64url');

  /** A command within the budget; undefined when Redis could not answer (unavailable, slow or failing). */
  const attempt = async <T>(what: string, command: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await health.call(command, options.timeoutMs);
    } catch (err) {
      if (!(err instanceof RedisUnavailableError)) options.logger.warn({ err, what }, 'recent writes: redis failed; this replica remembers them alone');
      return undefined;
    }
  };

  return {
    async put(scope, key, value, ttlMs) {
      await local.put(scope, key, value, ttlMs);
      if (ttlMs > 0) await attempt('put', () => client.set(keyOf(scope, key), value, 'PX', ttlMs));
    },
    async get(scope, key) {
      const shared = await attempt('get', () => client.get(keyOf(scope, key)));
      return shared ?? (await local.get(scope, key));
    },
    async push(scope, list, entry, limits) {
      await local.push(scope, list, entry, limits);
      if (limits.ttlMs <= 0 || limits.max <= 0) return;
      const key = keyOf(scope, list);
      await attempt('push', () =>
        client
          .multi()
          .zadd(key, entry.at, entry.member)
          .zremrangebyscore(key, '-inf', entry.at - limits.ttlMs)
          .zremrangebyrank(key, 0, -(limits.max + 1))
          .pexpire(key, limits.ttlMs)
          .exec(),
      );
    },
    async since(scope, list, since) {
      const [shared, own] = await Promise.all([
        attempt('since', () => client.zrangebyscore(keyOf(scope, list), `(${since}`, '+inf', 'WITHSCORES')),
        local.since(scope, list, since),
      ]);
      const byMember = new Map<string, RecentEntry>();
      for (let i = 0; shared && i + 1 < shared.length; i += 2) {
        const at = Number(shared[i + 1]);
        if (Number.isFinite(at)) byMember.set(shared[i]!, { member: shared[i]!, at });
      }
      for (const e of own) if (!byMember.has(e.member)) byMember.set(e.member, e);
      return [...byMember.values()].sort((a, b) => a.at - b.at);
    },
  };
}
