import { randomUUID } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { type CredentialEvents, openCredentialEvents } from '../../src/integrations/credential-events';
import { createRedisRefreshLock } from '../../src/integrations/refresh-lock';
import { openRedis } from '../../src/store/redis';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { type TestDb, openTestDb, preferredDriver } from '../helpers/db';
import { services, testConfig } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { serviceAuth } from '../helpers/http';
import { captureLogs } from '../helpers/logs';
import { TEST_TOOLS } from '../helpers/tools';
import { TcpProxy } from '../helpers/proxy';

/**
 * Redis slow or black-holed (it accepts bytes and never answers), through a TCP proxy the test breaks
 * (test/helpers/proxy.ts): nothing waits on it — the echo path stays fast, writes with a request_id answer 503
 * at once — and Redis is used again once it answers. Latency is the point, so this runs in the timing tier,
 * alone; PostgreSQL going away is test/component/degraded.test.ts.
 */

/** One call over a kept-alive connection, timed as its caller sees it. */
async function timedPost(url: string, body: object): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: serviceAuth(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), ms: performance.now() - t0 };
}

const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length * 0.99)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { redisUrl } = services();
(redisUrl ? describe : describe.skip)('when Redis stops answering (a black hole) and comes back', () => {
  jest.setTimeout(40_000);
  let proxy: TcpProxy;
  let redis: Redis;
  let events: CredentialEvents;
  let testDb: TestDb;
  let server: Server;
  let url: string;
  const logs = captureLogs();

  beforeAll(async () => {
    const real = new URL(redisUrl!);
    proxy = new TcpProxy({ host: real.hostname, port: Number(real.port || 6379) });
    await proxy.up();
    redis = await openRedis(proxy.urlFor(redisUrl!), logs.logger);
    events = await openCredentialEvents(redis, logs.logger);
    testDb = await openTestDb(preferredDriver());
    const { app } = createApp({
      config: testConfig({ HUB_REDIS_PROBE_INTERVAL_MS: '500' }),
      logger: logs.logger,
      db: testDb.db,
      redis,
      credentialEvents: events,
      tools: [...BUILT_IN_TOOLS, ...TEST_TOOLS],
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await events.close();
    redis.disconnect();
    await proxy.cut();
    await testDb.drop();
  });

  test('when Redis is only slow (160 ms round trips), then calls past the 50 ms budget are limited in memory, but the breaker stays closed and writes still use Redis', async () => {
    await timedPost(url, anExecuteBody()).then((warm) => expect(warm.status).toBe(200));
    proxy.delay(80); // each way
    try {
      const echo = await timedPost(url, anExecuteBody());
      expect(echo.status).toBe(200);
      expect(echo.ms).toBeLessThan(150); // it did not wait for Redis' answer
      await sleep(400); // the PING the overrun sent has been answered (in 160 ms, within the 250 ms probe)
      const write = await timedPost(url, anExecuteBody({ tool: 'test_write', inputs: { tag: randomUUID() }, context: { request_id: randomUUID() } }));
      expect(write.status).toBe(200); // the idempotency store was not given up on
      expect(logs.entries().some((e) => e.msg === 'redis stopped answering; dropping the connection, limits run in memory until it answers')).toBe(false);
    } finally {
      proxy.delay(0);
    }
  });

  test('then hub_echo p99 stays under 50 ms throughout, writes with a request_id answer 503 at once, the refresh lock does not wait, and Redis is used again once it answers', async () => {
    const echoes: number[] = [];
    let phase: 'warm-up' | 'before' | 'stalled' | 'after' | 'done' = 'warm-up';
    const statuses = new Set<number>();
    // An agent calling hub_echo back to back for the whole test (one at a time: latency, not queueing, is measured).
    const load = async () => {
      while (phase !== 'done') {
        const res = await timedPost(url, anExecuteBody());
        statuses.add(res.status);
        if (phase !== 'warm-up') echoes.push(res.ms);
      }
    };
    const running = load();
    await sleep(300);
    phase = 'before';
    const aWrite = () => timedPost(url, anExecuteBody({ tool: 'test_write', inputs: { tag: randomUUID() }, context: { request_id: randomUUID() } }));

    await sleep(700);
    expect((await aWrite()).status).toBe(200); // Redis answers: the idempotency record is taken

    proxy.blackhole();
    phase = 'stalled';
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
    const lock = await createRedisRefreshLock(redis).acquire(`hub:test-lock:${randomUUID()}`, 5_000);
    expect(lock.state).toBe('unavailable');
    expect(performance.now() - t0).toBeLessThan(100);
    events.publish({ customerId: randomUUID(), userId: null, integration: 'google_calendar' });

    proxy.resume();
    phase = 'after';
    let recovered = false;
    for (let i = 0; i < 30 && !recovered; i++) {
      await sleep(500);
      recovered = ((await fetch(`${url}/readyz`).then((r) => r.json())) as { status: string }).status === 'ready';
    }
    expect(recovered).toBe(true);
    expect((await aWrite()).status).toBe(200); // records are kept in Redis again
    await sleep(500);
    phase = 'done';
    await running;

    expect([...statuses]).toEqual([200]);
    expect(echoes.length).toBeGreaterThan(300);
    expect(p99(echoes)).toBeLessThan(50);
    expect(logs.entries().some((e) => e.msg === 'redis stopped answering; dropping the connection, limits run in memory until it answers')).toBe(true);
  });
});
