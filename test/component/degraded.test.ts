import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { createRedisRefreshLock } from '../../src/integrations/refresh-lock';
import { openRedis } from '../../src/store/redis';
import { openPostgres } from '../../src/store/postgres';
import type { Db } from '../../src/store/db';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { type TestDb, openTestDb } from '../helpers/db';
import { services, testConfig } from '../helpers/env';
import { aCredential, anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { captureLogs } from '../helpers/logs';
import { TEST_TOOLS } from '../helpers/tools';
import { type HubBehindRedisProxy, hubBehindRedisProxy, timedPost } from '../helpers/outages';
import { TcpProxy } from '../helpers/proxy';

/**
 * PostgreSQL and Redis failing and coming back, through a TCP proxy the test breaks (test/helpers/proxy.ts).
 * PostgreSQL cut: calls that need credentials get a retryable 503, readiness goes false, nothing crashes — and
 * service resumes without a restart. Redis black-holed (it accepts bytes and never answers): one call waits its
 * budget and trips a shared "unresponsive" state, after which nothing waits on it — the echo path goes on in
 * memory, writes with a request_id answer 503 at once — and Redis is used again once it answers. The echo
 * path's latency under a black hole is asserted in the timing tier (test/timing/redis-blackhole.test.ts).
 */

const { databaseUrl } = services();
(databaseUrl ? describe : describe.skip)('when PostgreSQL goes away and comes back', () => {
  let testDb: TestDb;
  let proxy: TcpProxy;
  let db: Db;

  beforeAll(async () => {
    testDb = await openTestDb('postgres');
    const real = new URL(testDb.url!);
    proxy = new TcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    await proxy.up();
    db = openPostgres({ url: proxy.urlFor(testDb.url!), poolMax: 3, logger: captureLogs().logger });
  });
  afterAll(async () => {
    await db.close();
    await proxy.cut();
    await testDb.drop();
  });

  test('then credential calls answer 503 SERVICE_UNAVAILABLE and /readyz 503 while it is gone, and both recover without a restart', async () => {
    // No credential cache: it would (rightly) keep answering from memory for its TTL; this is about the store.
    const config = testConfig({ HUB_CREDENTIAL_CACHE_TTL_MS: '0' });
    const { app, store } = createApp({ config, logger: captureLogs().logger, db, tools: [...BUILT_IN_TOOLS, ...TEST_TOOLS] });
    const customerId = randomUUID();
    await store.save(aCredential({ customerId }));
    const probe = () =>
      client(app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .send(anExecuteBody({ tool: 'test_calendar_probe', customer_id: customerId, inputs: {} }));
    await probe().expect(200);

    await proxy.cut();
    const down = await probe().expect(503);
    expect(down.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
    await client(app).get('/readyz').expect(503);
    await client(app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200); // hub_echo needs no database

    await proxy.up();
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await probe()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    await client(app).get('/readyz').expect(200);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OPENED = 'redis stopped answering; dropping the connection, limits run in memory until it answers';

const { redisUrl } = services();
(redisUrl ? describe : describe.skip)('when Redis stops answering (a black hole) and comes back', () => {
  jest.setTimeout(40_000);
  let hub: HubBehindRedisProxy;
  let url: string;

  beforeAll(async () => {
    hub = await hubBehindRedisProxy({ HUB_REDIS_PROBE_INTERVAL_MS: '500' });
    url = hub.url;
  });
  afterAll(() => hub.close());

  test('when Redis is only slow (160 ms round trips), then calls past the 50 ms budget are limited in memory, but the breaker stays closed and writes still use Redis', async () => {
    await timedPost(url, anExecuteBody()).then((warm) => expect(warm.status).toBe(200));
    hub.proxy.delay(80); // each way
    try {
      const echo = await timedPost(url, anExecuteBody());
      expect(echo.status).toBe(200);
      expect(echo.ms).toBeLessThan(150); // it did not wait for Redis' answer
      await sleep(400); // the PING the overrun sent has been answered (in 160 ms, within the 250 ms probe)
      const write = await timedPost(url, anExecuteBody({ tool: 'test_write', inputs: { tag: randomUUID() }, context: { request_id: randomUUID() } }));
      expect(write.status).toBe(200); // the idempotency store was not given up on
      expect(hub.logs.entries().some((e) => e.msg === OPENED)).toBe(false);
    } finally {
      hub.proxy.delay(0);
    }
  });

  test('then hub_echo keeps answering, writes with a request_id answer 503 at once, the refresh lock does not wait, and Redis is used again once it answers', async () => {
    let phase: 'running' | 'done' = 'running';
    const statuses = new Set<number>();
    let echoes = 0;
    // An agent calling hub_echo back to back for the whole test (its latency is the timing tier's: test/timing/).
    const load = async () => {
      while (phase !== 'done') {
        statuses.add((await timedPost(url, anExecuteBody())).status);
        echoes++;
      }
    };
    const running = load();
    const aWrite = () => timedPost(url, anExecuteBody({ tool: 'test_write', inputs: { tag: randomUUID() }, context: { request_id: randomUUID() } }));

    await sleep(500);
    expect((await aWrite()).status).toBe(200); // Redis answers: the idempotency record is taken

    hub.proxy.blackhole();
    const writes: { status: number; body: any; ms: number }[] = [];
    for (let i = 0; i < 8; i++) {
      await sleep(350);
      writes.push(await aWrite());
    }
    for (const write of writes) {
      expect(write.status).toBe(503);
      expect(write.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true, details: { reason: 'idempotency_store_unavailable' } });
      expect(write.ms).toBeLessThan(500);
    }
    const ready = (await fetch(`${url}/readyz`).then((r) => r.json())) as { status: string; checks: { redis: { ok: boolean } } };
    expect(ready).toMatchObject({ status: 'degraded', checks: { redis: { ok: false, error: 'timeout' } } });
    // The token-refresh lock gives up at once (the Hub then refreshes without it), and a credential event is fire and forget.
    const t0 = performance.now();
    const lock = await createRedisRefreshLock(hub.redis).acquire(`hub:test-lock:${randomUUID()}`, 5_000);
    expect(lock.state).toBe('unavailable');
    expect(performance.now() - t0).toBeLessThan(100);
    hub.events.publish({ customerId: randomUUID(), userId: null, integration: 'google_calendar' });

    hub.proxy.resume();
    let recovered = false;
    for (let i = 0; i < 30 && !recovered; i++) {
      await sleep(500);
      recovered = ((await fetch(`${url}/readyz`).then((r) => r.json())) as { status: string }).status === 'ready';
    }
    expect(recovered).toBe(true);
    expect((await aWrite()).status).toBe(200); // records are kept in Redis again
    phase = 'done';
    await running;

    expect([...statuses]).toEqual([200]);
    expect(echoes).toBeGreaterThan(50);
    expect(hub.logs.entries().some((e) => e.msg === OPENED)).toBe(true);
  });
});

/**
 * The shared "Redis is unresponsive" state: a budget of 800 ms (HUB_RATE_LIMIT_REDIS_TIMEOUT_MS) makes a call
 * that waited it unmistakable from one that did not, even on a loaded machine; the heartbeat is slowed down so
 * that the calls, not its PING, find the black hole.
 */
(redisUrl ? describe : describe.skip)('when Redis stops answering while calls are waiting on it', () => {
  jest.setTimeout(40_000);
  const BUDGET_MS = 800;
  let hub: HubBehindRedisProxy;
  let direct: Redis;

  beforeAll(async () => {
    hub = await hubBehindRedisProxy({ HUB_REDIS_PROBE_INTERVAL_MS: '60000', HUB_RATE_LIMIT_REDIS_TIMEOUT_MS: String(BUDGET_MS) });
    direct = await openRedis(services().redisUrl!, hub.logs.logger);
  });
  afterAll(async () => {
    direct.disconnect();
    await hub.close();
  });

  /** hub_redis_fallbacks_total, by reason, from the Hub's /metrics. */
  const fallbacks = async (url: string) => {
    const text = await fetch(`${url}/metrics`).then((r) => r.text());
    const count = (reason: string) => Number(new RegExp(`^hub_redis_fallbacks_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    return { budget: count('budget'), unresponsive: count('unresponsive') };
  };

  /** True when this customer's calls were charged in Redis (the shared limits), not only in memory. */
  const chargedInRedis = async (customerId: string) => (await direct.exists(`hub:rl:{${customerId}}:c`)) === 1;

  test('then one call waits its budget, the calls already waiting go on without Redis when it gives up, the next ones at once, and Redis is used again once it answers', async () => {
    const before = randomUUID();
    expect((await timedPost(hub.url, anExecuteBody({ customer_id: before }))).status).toBe(200);
    expect(await chargedInRedis(before)).toBe(true);

    hub.proxy.blackhole();
    // Three callers, 200 ms apart: all three are waiting on Redis when the first one's budget runs out.
    const waiting = [0, 200, 400].map(async (startAfter) => {
      await sleep(startAfter);
      const call = await timedPost(hub.url, anExecuteBody());
      return { ...call, endedAt: performance.now() };
    });
    const calls = await Promise.all(waiting);
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200]);
    expect(calls.filter((c) => c.ms >= BUDGET_MS)).toHaveLength(1); // only the first waited its whole budget
    const ends = calls.map((c) => c.endedAt);
    expect(Math.max(...ends) - Math.min(...ends)).toBeLessThan(150); // the other two gave up when it did
    expect(await fallbacks(hub.url)).toEqual({ budget: 1, unresponsive: 2 }); // as the Hub counted them

    // The next calls do not try Redis: none waits anything like the budget.
    const next: number[] = [];
    for (let i = 0; i < 10; i++) next.push((await timedPost(hub.url, anExecuteBody())).ms);
    expect(next.filter((ms) => ms >= BUDGET_MS / 2)).toEqual([]);
    expect(await fallbacks(hub.url)).toEqual({ budget: 1, unresponsive: 12 });
    const after = randomUUID();
    expect((await timedPost(hub.url, anExecuteBody({ customer_id: after }))).status).toBe(200);
    expect(await chargedInRedis(after)).toBe(false); // charged in memory, Redis left alone
    for (let i = 0; i < 20 && !hub.logs.entries().some((e) => e.msg === OPENED); i++) await sleep(100);
    expect(hub.logs.entries().some((e) => e.msg === OPENED)).toBe(true); // the PING went unanswered too

    hub.proxy.resume();
    const healed = randomUUID();
    let shared = false;
    for (let i = 0; i < 40 && !shared; i++) {
      await sleep(250);
      expect((await timedPost(hub.url, anExecuteBody({ customer_id: healed }))).status).toBe(200);
      shared = await chargedInRedis(healed);
    }
    expect(shared).toBe(true); // healed in the background: the shared limits are used again
  });
});
