import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { openRedis } from '../../src/store/redis';
import { unreachableDb } from '../helpers/db';
import { services, testConfig } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { captureLogs } from '../helpers/logs';
import { TEST_TOOLS } from '../helpers/tools';
import { BUILT_IN_TOOLS } from '../../src/tools';

/**
 * Per-customer and per-agent limits, in memory and shared through Redis. The apps here run on an unreachable
 * database on purpose: a call the limiter rejects must answer 429 without ever needing it.
 */

const LIMITS = { HUB_RATE_LIMIT_CUSTOMER_POINTS: '6', HUB_RATE_LIMIT_AGENT_POINTS: '4', HUB_RATE_LIMIT_WINDOW_S: '60' };
const tools = [...BUILT_IN_TOOLS, ...TEST_TOOLS];
const hubOn = (env: Record<string, string> = {}, redis: Redis | null = null) =>
  createApp({ config: testConfig({ ...LIMITS, ...env }), logger: captureLogs().logger, db: unreachableDb(), redis, tools }).app;

const call = (app: ReturnType<typeof hubOn>, body: object) => client(app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body);

describe('in memory (no Redis)', () => {
  test('when an agent exceeds its limit, then 429 RATE_LIMITED scope agent with Retry-After and the draft headers; its sibling still runs', async () => {
    const app = hubOn();
    const customer = randomUUID();
    const runaway = randomUUID();
    for (let i = 0; i < 4; i++) await call(app, anExecuteBody({ customer_id: customer, agent_id: runaway })).expect(200);
    const res = await call(app, anExecuteBody({ customer_id: customer, agent_id: runaway })).expect(429);
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { scope: 'agent', limit: 4, window_s: 60 } });
    expect(res.body.error.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(res.headers['retry-after']).toBe(String(res.body.error.retry_after_s));
    expect(res.headers['ratelimit-policy']).toBe('"agent";q=4;w=60');
    expect(res.headers.ratelimit).toMatch(/^"agent";r=0;t=\d+$/);
    await call(app, anExecuteBody({ customer_id: customer, agent_id: randomUUID() })).expect(200);
  });

  test('when a caller over its limit calls again, then its 429 is held HUB_RATE_LIMITED_HOLD_MS first; a call within the limit is not', async () => {
    const app = hubOn({ HUB_RATE_LIMITED_HOLD_MS: '400', HUB_RATE_LIMIT_AGENT_POINTS: '1' });
    const body = anExecuteBody({ customer_id: randomUUID() });
    const timed = async (status: number) => {
      const t0 = performance.now();
      await call(app, body).expect(status);
      return performance.now() - t0;
    };
    await timed(200);
    // A lower bound only: a loaded machine can make an answer later, never the hold shorter.
    expect(await timed(429)).toBeGreaterThanOrEqual(390);
  });

  test("when the customer's agents together exceed its limit, then 429 scope customer for every agent", async () => {
    const app = hubOn();
    const customer = randomUUID();
    for (let i = 0; i < 6; i++) await call(app, anExecuteBody({ customer_id: customer })).expect(200);
    const res = await call(app, anExecuteBody({ customer_id: customer })).expect(429);
    expect(res.body.error.details.scope).toBe('customer');
    expect(res.headers['ratelimit-policy']).toBe('"customer";q=6;w=60');
    await call(app, anExecuteBody({ customer_id: randomUUID() })).expect(200); // other customers are untouched
  });

  test('when a tool needs credentials and is over the limit, then 429 — no database query was needed', async () => {
    const app = hubOn({ HUB_RATE_LIMIT_AGENT_POINTS: '1' });
    const body = anExecuteBody({ tool: 'test_calendar_probe', inputs: {} });
    await call(app, body).expect(503); // under the limit: it reaches the (unreachable) database
    await call(app, body).expect(429); // over it: answered before any lookup
  });

  test('when a customer uses more distinct agent_ids than allowed in a window, then a new one gets 429 scope distinct_agents; known agents and other customers still run', async () => {
    const app = hubOn({ HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: '2' });
    const customer = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    await call(app, anExecuteBody({ customer_id: customer, agent_id: a })).expect(200);
    await call(app, anExecuteBody({ customer_id: customer, agent_id: b })).expect(200);
    const res = await call(app, anExecuteBody({ customer_id: customer, agent_id: randomUUID() })).expect(429);
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { scope: 'distinct_agents', limit: 2, window_s: 60 } });
    expect(res.body.error.message).toBe('Rate limit exceeded for distinct agent_ids of this customer: 2 agent ids per 60 s');
    expect(res.headers['ratelimit-policy']).toBe('"distinct_agents";q=2;w=60');
    expect(res.headers.ratelimit).toMatch(/^"distinct_agents";r=0;t=\d+$/);
    await call(app, anExecuteBody({ customer_id: customer, agent_id: a })).expect(200);
    await call(app, anExecuteBody({ customer_id: randomUUID() })).expect(200);
  });

  test('when rotating agent_id, then the customer limit still caps the customer whatever ids it claims', async () => {
    const app = hubOn();
    const customer = randomUUID();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(app, anExecuteBody({ customer_id: customer }))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  test('when a tool writes, then it costs the write cost; a per-tool override wins', async () => {
    const app = hubOn({ HUB_RATE_LIMIT_WRITE_COST: '3' });
    const body = { tool: 'test_write', inputs: { tag: randomUUID() }, customer_id: randomUUID(), agent_id: randomUUID() };
    await call(app, body).expect(200);
    const second = await call(app, body).expect(429); // 3 + 3 > 4 agent points
    expect(second.body.error.details.scope).toBe('agent');
    const cheap = hubOn({ HUB_RATE_LIMIT_WRITE_COST: '3', HUB_RATE_LIMIT_TOOL_COSTS: 'test_write=1' });
    for (let i = 0; i < 4; i++) await call(cheap, body).expect(200);
  });
});

describe('shared through Redis', () => {
  const { redisUrl } = services();
  const maybe = redisUrl ? describe : describe.skip;
  maybe('with REDIS_URL', () => {
    let redisA: Redis;
    let redisB: Redis;
    beforeAll(async () => {
      redisA = await openRedis(redisUrl!, captureLogs().logger);
      redisB = await openRedis(redisUrl!, captureLogs().logger);
    });
    afterAll(async () => {
      await redisA.quit();
      await redisB.quit();
    });

    test('when a call is charged, then the agent, customer and distinct-agent limits take one Redis round trip', async () => {
      const app = hubOn({}, redisA);
      const sent: string[] = [];
      const send = redisA.sendCommand.bind(redisA);
      redisA.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
        sent.push(command.name);
        return (send as (...args: unknown[]) => unknown)(command, ...rest);
      }) as typeof redisA.sendCommand;
      try {
        await call(app, anExecuteBody()).expect(200); // the first may load the script (EVALSHA, then EVAL)
        sent.length = 0;
        await call(app, anExecuteBody()).expect(200);
        expect(sent.filter((name) => name !== 'ping')).toEqual(['evalsha']); // (a PING is the breaker's heartbeat)
      } finally {
        redisA.sendCommand = send;
      }
    });

    test('when agent_ids rotate across two replicas, then the distinct-agent bound holds across both', async () => {
      const [a, b] = [hubOn({ HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: '3' }, redisA), hubOn({ HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: '3' }, redisB)];
      const customer = randomUUID();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(i % 2 ? a : b, anExecuteBody({ customer_id: customer }))).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    });

    test('when an agent is over its limit through Redis, then the answer matches the in-memory one', async () => {
      const app = hubOn({}, redisA);
      const body = anExecuteBody();
      for (let i = 0; i < 4; i++) await call(app, body).expect(200);
      const res = await call(app, body).expect(429);
      expect(res.body.error.details).toEqual({ scope: 'agent', limit: 4, window_s: 60 });
      expect(res.headers.ratelimit).toMatch(/^"agent";r=0;t=(59|60)$/);
    });

    test('when calls are spread over two replicas, then the customer limit holds across both', async () => {
      const [a, b] = [hubOn({}, redisA), hubOn({}, redisB)];
      const customer = randomUUID();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await call(i % 2 ? a : b, anExecuteBody({ customer_id: customer }));
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.slice(6).every((s) => s === 429)).toBe(true);
    });
  });

  test("when Redis is unreachable, then the insurance limiter keeps limiting at this replica's share, without waiting", async () => {
    const down = await openRedis('redis://127.0.0.1:1', captureLogs().logger, 50);
    try {
      const app = hubOn({ HUB_REPLICAS: '2' }, down);
      const customer = randomUUID();
      const started = Date.now();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(app, anExecuteBody({ customer_id: customer }))).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]); // 6 points / 2 replicas = 3
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      down.disconnect();
    }
  });
});
