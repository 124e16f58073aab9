import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { openRedis } from '../../src/store/redis';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { unreachableDb } from '../helpers/db';
import { services, testConfig } from '../helpers/env';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { TEST_TOOLS, writeCounts } from '../helpers/tools';

/** context.request_id as the idempotency key of write tools: at most one run, the first answer replayed. */

type App = TestHub['app'];
const write = (app: App, body: { customer_id?: string; request_id?: string | null; inputs: Record<string, unknown>; agent_id?: string }) =>
  client(app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({
      tool: 'test_write',
      agent_id: body.agent_id ?? randomUUID(),
      customer_id: body.customer_id ?? CUSTOMER,
      inputs: body.inputs,
      ...(body.request_id === undefined ? {} : { context: { request_id: body.request_id } }),
    });

const CUSTOMER = randomUUID();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub();
});
afterAll(() => hub.close());

describe('on the database (no Redis)', () => {
  test('when a write is retried with the same request_id and inputs, then it ran once and the retry replays the first answer', async () => {
    const tag = randomUUID();
    const first = await write(hub.app, { request_id: `r-${tag}`, inputs: { tag } }).expect(200);
    const again = await write(hub.app, { request_id: `r-${tag}`, inputs: { tag } }).expect(200);
    expect(writeCounts.get(tag)).toBe(1);
    expect(again.body.result).toEqual(first.body.result);
    expect(again.body.metadata).toMatchObject({ idempotent_replay: true, api_calls: 0, request_id: `r-${tag}` });
    expect(first.body.metadata.idempotent_replay).toBeUndefined();
  });

  test('when the same request_id comes with other inputs, then 409 CONFLICT request_id_reused, not retryable', async () => {
    const tag = randomUUID();
    await write(hub.app, { request_id: `r-${tag}`, inputs: { tag } }).expect(200);
    const res = await write(hub.app, { request_id: `r-${tag}`, inputs: { tag: `${tag}-other` } }).expect(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', retryable: false, details: { reason: 'request_id_reused' } });
    expect(writeCounts.get(`${tag}-other`)).toBeUndefined();
  });

  test('when a retry arrives while the first call runs, then 409 CONFLICT request_in_progress, retryable, and one run', async () => {
    const tag = randomUUID();
    const slow = write(hub.app, { request_id: `r-${tag}`, inputs: { tag, delay_ms: 400 } }).then((r) => r); // supertest sends on then()
    await new Promise((r) => setTimeout(r, 100));
    const res = await write(hub.app, { request_id: `r-${tag}`, inputs: { tag, delay_ms: 400 } }).expect(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', retryable: true, details: { reason: 'request_in_progress' } });
    expect(res.headers['retry-after']).toBe(String(res.body.error.retry_after_s));
    expect((await slow).status).toBe(200);
    expect(writeCounts.get(tag)).toBe(1);
  });

  test('when a burst of retries shares one request_id, then the write runs exactly once', async () => {
    const tag = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => write(hub.app, { request_id: `r-${tag}`, inputs: { tag, delay_ms: 50 } })));
    expect(writeCounts.get(tag)).toBe(1);
    expect(answers.filter((a) => a.status === 200 && !a.body.metadata.idempotent_replay)).toHaveLength(1);
    expect(answers.every((a) => a.status === 200 || (a.status === 409 && a.body.error.retryable))).toBe(true);
  });

  test('when the first attempt failed retryably, then a retry runs again; a permanent failure is replayed', async () => {
    const flaky = randomUUID();
    await write(hub.app, { request_id: `r-${flaky}`, inputs: { tag: flaky, fail: 'retryable' } }).expect(502);
    await write(hub.app, { request_id: `r-${flaky}`, inputs: { tag: flaky, fail: 'retryable' } }).expect(502);
    expect(writeCounts.get(flaky)).toBe(2);
    const broken = randomUUID();
    await write(hub.app, { request_id: `r-${broken}`, inputs: { tag: broken, fail: 'permanent' } }).expect(404);
    const replayed = await write(hub.app, { request_id: `r-${broken}`, inputs: { tag: broken, fail: 'permanent' } }).expect(404);
    expect(replayed.body.metadata.idempotent_replay).toBe(true);
    expect(writeCounts.get(broken)).toBe(1);
  });

  test('when the first attempt failed validation, then nothing was recorded and the corrected call runs', async () => {
    const tag = randomUUID();
    await write(hub.app, { request_id: `r-${tag}`, inputs: { tag, colour: 'red' } }).expect(400);
    await write(hub.app, { request_id: `r-${tag}`, inputs: { tag } }).expect(200);
    expect(writeCounts.get(tag)).toBe(1);
  });

  test('when writes carry no request_id, then each one runs; the key is scoped per customer', async () => {
    const tag = randomUUID();
    await write(hub.app, { inputs: { tag } }).expect(200);
    await write(hub.app, { request_id: null, inputs: { tag } }).expect(200);
    expect(writeCounts.get(tag)).toBe(2);
    await write(hub.app, { request_id: `r-${tag}`, inputs: { tag } }).expect(200);
    await write(hub.app, { request_id: `r-${tag}`, inputs: { tag }, customer_id: randomUUID() }).expect(200);
    expect(writeCounts.get(tag)).toBe(4);
  });

  test('when the record store is unreachable, then a write with a request_id is refused with 503 and does not run', async () => {
    const app = createApp({ config: testConfig(), logger: captureLogs().logger, db: unreachableDb(), tools: [...BUILT_IN_TOOLS, ...TEST_TOOLS] }).app;
    const tag = randomUUID();
    const res = await write(app, { request_id: `r-${tag}`, inputs: { tag } }).expect(503);
    expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true, details: { reason: 'idempotency_store_unavailable' } });
    expect(writeCounts.get(tag)).toBeUndefined();
  });
});

describe('shared through Redis', () => {
  const { redisUrl } = services();
  (redisUrl ? test : test.skip)('when retries of one request_id land on different replicas, then the write runs once', async () => {
    const redisA: Redis = await openRedis(redisUrl!, captureLogs().logger);
    const redisB: Redis = await openRedis(redisUrl!, captureLogs().logger);
    try {
      const replica = (redis: Redis) =>
        createApp({ config: testConfig(), logger: captureLogs().logger, db: hub.testDb.db, redis, tools: [...BUILT_IN_TOOLS, ...TEST_TOOLS] }).app;
      const [a, b] = [replica(redisA), replica(redisB)];
      const tag = randomUUID();
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => write(i % 2 ? a : b, { request_id: `r-${tag}`, inputs: { tag, delay_ms: 30 } })));
      expect(writeCounts.get(tag)).toBe(1);
      expect(answers.every((x) => x.status === 200 || x.status === 409)).toBe(true);
      const later = await write(b, { request_id: `r-${tag}`, inputs: { tag, delay_ms: 30 } }).expect(200);
      expect(later.body.metadata.idempotent_replay).toBe(true);
    } finally {
      await redisA.quit();
      await redisB.quit();
    }
  });
});
