import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { testConfig } from '../helpers/env';
import request from 'supertest';
import { client } from '../helpers/http';
import { unreachableDb } from '../helpers/db';
import { buildTestHub, type TestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import type { Redis } from 'ioredis';

/** Only readiness is exercised here: a client whose ping behaves as given (it is never ready for commands). */
const fakeRedis = (ping: () => Promise<string>, status = 'reconnecting') =>
  ({ ping, status, defineCommand: () => undefined, disconnect: () => undefined }) as unknown as Redis;

describe('operational endpoints', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  it('when /healthz is asked, then the process answers without authentication', async () => {
    const res = await client(hub.app).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('when the database answers, then /readyz is ready and reports the check', async () => {
    const res = await client(hub.app).get('/readyz').expect(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: { ok: true, latency_ms: expect.any(Number) } } });
  });

  it('when Redis is configured but not answering, then /readyz stays ready but degraded and says which check failed', async () => {
    const app = createApp({
      config: testConfig(),
      logger: captureLogs().logger,
      db: hub.testDb.db,
      redis: fakeRedis(() => Promise.reject(new Error('Connection is closed.'))),
    }).app;
    const res = await client(app).get('/readyz').expect(200);
    expect(res.body).toEqual({
      status: 'degraded',
      checks: { database: { ok: true, latency_ms: expect.any(Number) }, redis: { ok: false, latency_ms: expect.any(Number), error: 'unreachable' } },
    });
  });

  it('when Redis hangs, then /readyz answers within its timeout instead of hanging', async () => {
    const app = createApp({
      config: testConfig(),
      logger: captureLogs().logger,
      db: hub.testDb.db,
      redis: fakeRedis(() => new Promise<string>(() => {}), 'ready'), // connected, never answering
    }).app;
    const res = await client(app).get('/readyz').expect(200);
    expect(res.body.checks.redis).toMatchObject({ ok: false, error: 'timeout' });
  });

  it('when the Hub is shutting down, then /readyz says so with 503', async () => {
    hub.lifecycle.shuttingDown = true;
    try {
      const res = await client(hub.app).get('/readyz').expect(503);
      expect(res.body).toEqual({ status: 'shutting_down', checks: {} });
      expect(res.headers.connection).toBe('close');
    } finally {
      hub.lifecycle.shuttingDown = false;
    }
  });

  it('when the database is gone, then /readyz is not ready', async () => {
    const down = await buildTestHub({ db: unreachableDb() });
    const res = await client(down.app).get('/readyz').expect(503);
    expect(res.body.checks.database).toEqual({ ok: false, latency_ms: expect.any(Number), error: 'unreachable' });
    await down.close();
  });

  it('when /openapi.yaml is asked, then the spec file is served as YAML', async () => {
    const res = await client(hub.app).get('/openapi.yaml').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(res.text).toBe(readFileSync(join(__dirname, '../../openapi.yaml'), 'utf8'));
  });

  it('when an unknown public path is asked, then 404 in the error envelope', async () => {
    const res = await client(hub.app).get('/nope?x=1').expect(404);
    expect(res.body).toEqual({
      success: false,
      tool: null,
      error: { code: 'RESOURCE_NOT_FOUND', message: 'No endpoint GET /nope', retryable: false },
      metadata: { execution_time_ms: expect.any(Number), api_calls: 0, request_id: expect.any(String) },
    });
  });

  it('when any response goes out, then it carries the API security headers and a request id, and no framework banner', async () => {
    const res = await client(hub.app).get('/healthz').set('X-Request-Id', 'probe-1').expect(200);
    expect(res.headers).toMatchObject({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'x-request-id': 'probe-1',
    });
    for (const absent of ['x-powered-by', 'etag', 'x-xss-protection', 'origin-agent-cluster']) {
      expect(res.headers[absent]).toBeUndefined();
    }
  });

  it('when a HEAD request is made, then headers come without a body', async () => {
    const res = await request(hub.app).head('/healthz').expect(200);
    expect(res.headers['content-length']).toBe('15');
    expect(res.text ?? '').toBe('');
  });

  it('when a caller sends an unsafe X-Request-Id, then the Hub generates its own', async () => {
    const res = await client(hub.app).get('/healthz').set('X-Request-Id', 'x'.repeat(200)).expect(200);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
