import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { RecentWrites, WriteScope } from '../../src/core/recent-writes';
import { createMemoryRecentWrites } from '../../src/store/recent-writes-memory';
import { createRedisRecentWrites } from '../../src/store/recent-writes-redis';
import { openRedis } from '../../src/store/redis';
import { createRedisHealth } from '../../src/store/redis-health';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/**
 * The recent-writes port (src/core/recent-writes.ts) in this process's memory and in Redis: values and lists
 * expire, lists keep their newest members only, and one connection never sees or overwrites another's facts.
 * With Redis, a replica sees what another wrote, and goes on with its own writes alone while Redis is away.
 */

const { redisUrl } = services();
const ana: WriteScope = { credentialId: 'cred-1', accountEmail: 'ana@contoso.example' };
const ben: WriteScope = { credentialId: 'cred-2', accountEmail: 'ben@contoso.example' };
const anaReconnected: WriteScope = { credentialId: 'cred-1', accountEmail: 'ana.other@contoso.example' };
const limits = { ttlMs: 60_000, max: 20 };
let run = 0;
/** Keys of their own per test: the Redis database outlives a test. */
const fresh = (name: string) => `${name}:${process.pid}:${Date.now()}:${run++}`;

const clients: Redis[] = [];
afterAll(async () => {
  for (const c of clients) c.disconnect();
});
async function replicaOnRedis(url: string): Promise<RecentWrites> {
  const { logger } = captureLogs();
  const client = await openRedis(url, logger, url === redisUrl ? 2_000 : 50);
  clients.push(client);
  const health = createRedisHealth(client, { logger, probeIntervalMs: 60_000 });
  return createRedisRecentWrites({ client, health }, { timeoutMs: 250, logger });
}

const kinds: [string, () => Promise<RecentWrites>][] = [['memory', async () => createMemoryRecentWrites()]];
if (redisUrl) kinds.push(['Redis', () => replicaOnRedis(redisUrl)]);

describe.each(kinds)('recent writes in %s', (_kind, make) => {
  let facts: RecentWrites;
  beforeEach(async () => {
    facts = await make();
  });

  test('when a value is put, then it is read back until its time-to-live passes', async () => {
    const key = fresh('value');
    await facts.put(ana, key, 'event-1', 200);
    expect(await facts.get(ana, key)).toBe('event-1');
    await sleep(350);
    expect(await facts.get(ana, key)).toBeUndefined();
  });

  test('when members are pushed, then a read lists those after `since`, oldest first, a re-pushed member once', async () => {
    const list = fresh('list');
    const t0 = Date.now();
    await facts.push(ana, list, { member: 'a', at: t0 }, limits);
    await facts.push(ana, list, { member: 'b', at: t0 + 10 }, limits);
    await facts.push(ana, list, { member: 'a', at: t0 + 20 }, limits);
    expect(await facts.since(ana, list, t0 - 1)).toEqual([
      { member: 'b', at: t0 + 10 },
      { member: 'a', at: t0 + 20 },
    ]);
    expect(await facts.since(ana, list, t0 + 10)).toEqual([{ member: 'a', at: t0 + 20 }]);
  });

  test('when more members are pushed than the bound, then only the newest are kept', async () => {
    const list = fresh('bound');
    const t0 = Date.now();
    for (let i = 0; i < 25; i++) await facts.push(ana, list, { member: `e${i}`, at: t0 + i }, limits);
    const kept = await facts.since(ana, list, 0);
    expect(kept.map((e) => e.member)).toEqual(Array.from({ length: 20 }, (_, i) => `e${i + 5}`));
  });

  test('when a push comes later than the time-to-live, then older members are dropped, and the list expires', async () => {
    const list = fresh('aging');
    const t0 = Date.now();
    await facts.push(ana, list, { member: 'old', at: t0 - 500 }, { ttlMs: 300, max: 20 });
    await facts.push(ana, list, { member: 'new', at: t0 }, { ttlMs: 300, max: 20 });
    expect((await facts.since(ana, list, 0)).map((e) => e.member)).toEqual(['new']);
    await sleep(450);
    expect(await facts.since(ana, list, 0)).toEqual([]);
  });

  test('when two connections use the same keys, then neither reads nor overwrites the other’s facts', async () => {
    const key = fresh('shared-name');
    await facts.put(ana, key, 'ana-event', 60_000);
    await facts.put(ben, key, 'ben-event', 60_000);
    await facts.push(ana, key, { member: 'ana-1', at: Date.now() }, limits);
    expect(await facts.get(ana, key)).toBe('ana-event');
    expect(await facts.get(ben, key)).toBe('ben-event');
    expect(await facts.get(anaReconnected, key)).toBeUndefined(); // same credential, another account
    expect(await facts.since(ben, key, 0)).toEqual([]);
    expect(await facts.since(anaReconnected, key, 0)).toEqual([]);
  });
});

(redisUrl ? describe : describe.skip)('recent writes shared by replicas through Redis', () => {
  test('when one replica writes, then another sees the value and the list at once', async () => {
    const [a, b] = [await replicaOnRedis(redisUrl!), await replicaOnRedis(redisUrl!)];
    const [key, list] = [fresh('key'), fresh('calendar')];
    const at = Date.now();
    await a.put(ana, key, 'event-1', 60_000);
    await a.push(ana, list, { member: 'event-1', at }, limits);
    expect(await b.get(ana, key)).toBe('event-1');
    expect(await b.since(ana, list, at - 60_000)).toEqual([{ member: 'event-1', at }]);
    expect(await b.get(ben, key)).toBeUndefined();
  });

  test('when Redis is unreachable, then writes and reads go on at once and a replica still sees its own writes', async () => {
    const lonely = await replicaOnRedis('redis://127.0.0.1:1');
    const [key, list] = [fresh('key'), fresh('calendar')];
    const t0 = Date.now();
    await lonely.put(ana, key, 'event-1', 60_000);
    await lonely.push(ana, list, { member: 'event-1', at: t0 }, limits);
    expect(await lonely.get(ana, key)).toBe('event-1');
    expect(await lonely.since(ana, list, t0 - 1)).toEqual([{ member: 'event-1', at: t0 }]);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
