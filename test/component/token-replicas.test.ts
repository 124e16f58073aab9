import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedisRefreshLock } from '../../src/integrations/refresh-lock';
import { openPostgres } from '../../src/store/postgres';
import { openRedis } from '../../src/store/redis';
import { type TestDb, openTestDb } from '../helpers/db';
import { services } from '../helpers/env';
import { aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { SCOPES, TEST_CLIENT, type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * One refresh across replicas: three Hub instances (each its own database pool, Redis client and in-process
 * state) share PostgreSQL, Redis and Google; a burst of calls spread over them for one near-expiry credential
 * makes Google see a single refresh. And the lock itself, against the real Redis.
 */

const ANA = 'ana@acme.example';
const { databaseUrl, redisUrl } = services();
const maybe = databaseUrl && redisUrl ? describe : describe.skip;

maybe('refreshing across replicas', () => {
  let sb: TestSandbox;
  let testDb: TestDb;
  const opened: { redis: Redis[]; hubs: TestHub[] } = { redis: [], hubs: [] };

  const env = () => ({
    HUB_GOOGLE_SANDBOX_URL: sb.url,
    HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
    HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
    HUB_TOOL_DEADLINE_MS: '5000',
  });
  /** A Hub instance on the shared database (its own pool), with its own Redis client, or none. */
  async function replica(redis: 'shared' | 'none' | Redis = 'shared'): Promise<TestHub> {
    const client = redis === 'shared' ? await openRedis(redisUrl!, captureLogs().logger) : redis === 'none' ? undefined : redis;
    if (redis === 'shared') opened.redis.push(client!);
    const db = openPostgres({ url: testDb.url!, poolMax: 5, logger: captureLogs().logger });
    const hub = await buildTestHub({ db, env: env(), ...(client ? { redis: client } : {}) });
    opened.hubs.push(hub);
    return hub;
  }

  beforeAll(async () => {
    sb = await startTestSandbox();
    await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
    testDb = await openTestDb('postgres');
  });
  afterEach(() => sb.control('DELETE', '/faults'));
  afterAll(async () => {
    for (const hub of opened.hubs) await hub.close();
    for (const redis of opened.redis) await redis.quit();
    await testDb.drop();
    sb.expectFaithful();
    await sb.close();
  });

  /** A customer whose real grant's access token the Hub believes expires in a minute. */
  async function nearExpiry(on: TestHub): Promise<string> {
    const grant = (await sb.control('POST', '/tokens', { email: ANA, scopes: [SCOPES.calendarReadonly], client_id: TEST_CLIENT.clientId, offline: true })).body;
    const saved = await on.store.save(
      aCredential({
        accountEmail: ANA,
        accessToken: grant.access_token,
        refreshToken: grant.refresh_token,
        scopes: [SCOPES.calendarReadonly],
        tokenExpiresAt: new Date(Date.now() + 60_000),
      }),
    );
    return saved.customerId;
  }

  const call = (hub: TestHub, customerId: string) =>
    client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send({ tool: 'test_calendar_timezone', agent_id: randomUUID(), customer_id: customerId, inputs: {} });

  /** 30 concurrent calls spread over the replicas; returns their statuses and the refreshes Google saw. */
  async function burst(hubs: TestHub[], customerId: string) {
    // The refresh takes a while at Google, so every replica's first call arrives while it is in flight.
    await sb.control('POST', '/faults', { operation: 'oauth.token', latency_ms: 200 });
    const since = (await sb.control('GET', '/requests')).body.next as number;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => call(hubs[i % hubs.length]!, customerId)));
    const log = (await sb.control('GET', `/requests?since=${since}`)).body.requests as { method: string; path: string }[];
    return { statuses: results.map((r) => r.status), refreshes: log.filter((r) => r.method === 'POST' && r.path === '/token').length };
  }

  test('when 30 calls for one near-expiry credential are spread over 3 replicas sharing Redis, then Google sees exactly one refresh', async () => {
    const hubs = [await replica(), await replica(), await replica()];
    const customerId = await nearExpiry(hubs[0]!);
    const { statuses, refreshes } = await burst(hubs, customerId);
    expect(statuses).toEqual(Array(30).fill(200));
    expect(refreshes).toBe(1);
  });

  test('when the same replicas have no shared lock (control), then each refreshes on its own — what the lock prevents', async () => {
    const hubs = [await replica('none'), await replica('none'), await replica('none')];
    const customerId = await nearExpiry(hubs[0]!);
    const { statuses, refreshes } = await burst(hubs, customerId);
    expect(statuses).toEqual(Array(30).fill(200));
    expect(refreshes).toBe(3);
  });

  test('when Redis is down, then the call refreshes without the lock at once and logs a warning', async () => {
    const dead = await openRedis('redis://127.0.0.1:1', captureLogs().logger, 50);
    try {
      const hub = await replica(dead);
      const customerId = await nearExpiry(hub);
      const started = Date.now();
      const res = await call(hub, customerId);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(hub.logs.entries().some((e) => e.level === 40 && e.msg === 'refresh lock unavailable; refreshing without the cross-replica lock')).toBe(true);
    } finally {
      dead.disconnect();
    }
  });

  test('when someone other than the owner releases the lock, then it stays; the owner’s release deletes it', async () => {
    const redis = await openRedis(redisUrl!, captureLogs().logger);
    opened.redis.push(redis);
    const lock = createRedisRefreshLock(redis);
    const key = `hub:test-lock:${randomUUID()}`;
    expect(await lock.tryTake(key, 'owner-a', 5000)).toBe(true);
    expect(await lock.tryTake(key, 'owner-b', 5000)).toBe(false);
    expect(await lock.acquire(key, 5000)).toEqual({ state: 'held' });
    expect(await lock.releaseIfOwner(key, 'owner-b')).toBe(false);
    expect(await redis.get(key)).toBe('owner-a');
    expect(await redis.pttl(key)).toBeGreaterThan(4000);
    expect(await lock.releaseIfOwner(key, 'owner-a')).toBe(true);
    expect(await redis.get(key)).toBeNull();

    const taken = await lock.acquire(key, 5000);
    expect(taken.state).toBe('acquired');
    await redis.set(key, 'a-successor', 'PX', 5000); // the TTL passed and another replica took it over
    if (taken.state === 'acquired') await taken.release();
    expect(await redis.get(key)).toBe('a-successor');
    await redis.del(key);
  });
});
