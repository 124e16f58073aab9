import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import { type HubClient, createHubClient } from '../../packages/client/src/index';
import { openRedis } from '../../src/store/redis';
import { SUITE_NOW, storedEvents } from '../helpers/calendar';
import { connectToSandbox, sandboxHubEnv } from '../helpers/connected';
import { SECRET_A, services } from '../helpers/env';
import { type CallTool, PERSON, connectBoth, expectEveryToolCalled, runEveryTool } from '../helpers/every-tool';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { TcpProxy } from '../helpers/proxy';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * packages/client against a real Hub (over HTTP, on a free port) and the Google sandbox: every tool, each family
 * of error as a narrowed union, and retries of what the Hub calls retryable — with one request_id, so a retried
 * write still happens once.
 */

jest.setTimeout(60_000);
const sb = useTestSandbox();

async function listen(hub: TestHub): Promise<{ server: Server; url: string }> {
  const server = hub.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
const close = (server: Server) => new Promise((r) => server.close(r));

/** A Hub on a free port, for one describe block. */
function useHub(env: Record<string, string> = {}, redis?: () => Redis) {
  const state = {} as { hub: TestHub; server: Server; url: string; client: HubClient };
  beforeAll(async () => {
    state.hub = await buildTestHub({ env: sandboxHubEnv(sb, env), now: () => SUITE_NOW, ...(redis ? { redis: redis() } : {}) });
    Object.assign(state, await listen(state.hub));
    state.client = createHubClient({ baseUrl: state.url, serviceSecret: SECRET_A });
  });
  afterAll(async () => {
    await close(state.server);
    await state.hub.close();
  });
  return state;
}

describe('a Hub with default limits', () => {
  const h = useHub();

  test('when an agent calls every tool through the client, then each answers its typed result', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    await connectBoth(h.hub, sb, customerId);
    const call: CallTool = async (tool, inputs, requestId) => {
      const answer = await h.client.execute(tool as 'hub_echo', inputs as { message: string }, { customerId, agentId, ...(requestId ? { requestId } : {}) });
      if (!answer.ok) return { ok: false, code: answer.error.code, error: answer.error };
      expect(answer.attempts).toBe(1);
      if (requestId) expect(answer.metadata.request_id).toBe(requestId);
      return { ok: true, result: answer.result };
    };
    expectEveryToolCalled(await runEveryTool(call));
  });

  test('when the customer has not connected Gmail, then the error narrows to INTEGRATION_NOT_CONNECTED with its setup_url', async () => {
    const answer = await h.client.execute('email_search', { query: 'from:john@example.com' }, { customerId: randomUUID(), agentId: randomUUID() });
    if (answer.ok) throw new Error('expected a failure');
    expect(answer.error.code).toBe('INTEGRATION_NOT_CONNECTED');
    if (answer.error.code === 'INTEGRATION_NOT_CONNECTED') {
      const setupUrl: string = answer.error.details.setup_url; // typed as required for this code
      expect(setupUrl).toMatch(/^https:\/\/hub\.test\.example\/integrations\/google\/connect\?/);
      expect(answer.error).toMatchObject({ status: 400, retryable: false, details: { integration: 'google_gmail' } });
    }
    expect(answer.attempts).toBe(1);
  });

  test('when the inputs, the tool or the event are wrong, then VALIDATION_ERROR, TOOL_NOT_FOUND and RESOURCE_NOT_FOUND come back unretried', async () => {
    const ids = { customerId: randomUUID(), agentId: randomUUID() };
    const invalid = await h.client.execute('hub_echo', { message: 42 } as unknown as { message: string }, ids);
    expect(invalid).toMatchObject({
      ok: false,
      attempts: 1,
      error: { code: 'VALIDATION_ERROR', status: 400, details: { issues: [expect.objectContaining({ path: 'inputs.message' })] } },
    });
    const unknown = await h.client.execute('calendar_teleport' as 'hub_echo', { message: 'x' }, ids);
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: 'TOOL_NOT_FOUND', status: 404, details: { available_tools: expect.arrayContaining(['hub_echo']) } },
    });
    const customerId = randomUUID();
    await sb.createAccount({ email: PERSON });
    await connectToSandbox(h.hub, sb, { email: PERSON, integration: 'google_calendar', customerId });
    const missing = await h.client.execute('calendar_delete_event', { event_id: 'nosuchevent123' }, { customerId, agentId: randomUUID() });
    expect(missing).toMatchObject({ ok: false, attempts: 1, error: { code: 'RESOURCE_NOT_FOUND', status: 404, retryable: false } });
  });

  test('when Google keeps failing, then EXTERNAL_API_ERROR is retried within the budget and handed back with the same request_id', async () => {
    const customerId = randomUUID();
    await sb.createAccount({ email: PERSON });
    await connectToSandbox(h.hub, sb, { email: PERSON, integration: 'google_calendar', customerId });
    await sb.control('POST', '/faults', { operation: 'calendar.freebusy.query', preset: 'backendError' });
    const client = createHubClient({ baseUrl: h.url, serviceSecret: SECRET_A, maxRetries: 1 });
    const answer = await client.execute(
      'calendar_get_availability',
      { start_date: '2027-01-18', end_date: '2027-01-19' },
      { customerId, agentId: randomUUID(), requestId: 'avail-1' },
    );
    expect(answer).toMatchObject({ ok: false, attempts: 2, requestId: 'avail-1', error: { code: 'EXTERNAL_API_ERROR', status: 502, retryable: true } });
  });

  test('when the secret is wrong, then UNAUTHORIZED; status and catalog answer typed values', async () => {
    const wrong = createHubClient({ baseUrl: h.url, serviceSecret: 'not-the-secret-0123456789abcdef0123456789' });
    expect(await wrong.execute('hub_echo', { message: 'hi' }, { customerId: randomUUID(), agentId: randomUUID() })).toMatchObject({
      ok: false,
      attempts: 1,
      error: { code: 'UNAUTHORIZED', status: 401 },
    });
    expect(await wrong.catalog()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    const catalog = await h.client.catalog();
    if (!catalog.ok) throw new Error(JSON.stringify(catalog.error));
    expect(catalog.value.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['email_send', 'hub_echo']));
    const customerId = randomUUID();
    const status = await h.client.status(customerId, 'user-7');
    if (!status.ok) throw new Error(JSON.stringify(status.error));
    expect(status.value).toMatchObject({ customer_id: customerId, user_id: 'user-7', integrations: { google_calendar: { connected: false } } });
    expect(await h.client.status('not-a-uuid')).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });

  test('when the Hub is slow, unreachable or the caller aborts, then TIMEOUT, NETWORK_ERROR and ABORTED come back without retries', async () => {
    const ids = { customerId: randomUUID(), agentId: randomUUID() };
    const slow = await h.client.execute('test_slow' as 'hub_echo', { delay_ms: 2000 } as unknown as { message: string }, { ...ids, timeoutMs: 200 });
    expect(slow).toMatchObject({ ok: false, attempts: 1, error: { code: 'TIMEOUT', retryable: false } });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const aborted = await h.client.execute('test_slow' as 'hub_echo', { delay_ms: 2000 } as unknown as { message: string }, { ...ids, signal: abort.signal });
    expect(aborted).toMatchObject({ ok: false, error: { code: 'ABORTED' } });
    const { server, url } = await listen(h.hub);
    await close(server);
    const gone = createHubClient({ baseUrl: url, serviceSecret: SECRET_A });
    expect(await gone.execute('hub_echo', { message: 'hi' }, ids)).toMatchObject({ ok: false, error: { code: 'NETWORK_ERROR' } });
  });
});

describe('a Hub whose agents may make one write per second', () => {
  const h = useHub({ HUB_RATE_LIMIT_WINDOW_S: '1', HUB_RATE_LIMIT_AGENT_POINTS: '5', HUB_RATE_LIMIT_WRITE_COST: '5' });

  test('when a write is rate limited (429), then the client waits retry_after_s and retries with the same request_id: one event', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    await sb.createAccount({ email: PERSON });
    await connectToSandbox(h.hub, sb, { email: PERSON, integration: 'google_calendar', customerId });
    const create = (title: string, requestId: string) =>
      h.client.execute('calendar_create_event', { title, start: '2027-01-20T10:00:00Z', end: '2027-01-20T11:00:00Z' }, { customerId, agentId, requestId });
    expect((await create('First', `first-${agentId}`)).ok).toBe(true);
    const second = await create('Second', `second-${agentId}`);
    if (!second.ok) throw new Error(JSON.stringify(second.error));
    expect(second.attempts).toBe(2);
    expect(second.metadata.request_id).toBe(`second-${agentId}`);
    expect(
      storedEvents(sb, PERSON)
        .filter((e) => e.fields.summary === 'Second')
        .map((e) => e.id),
    ).toEqual([second.result.event_id]);
    expect(
      h.hub.logs
        .entries()
        .filter((e) => (e.msg === 'request completed' || e.msg === 'request failed') && e.request_id === `second-${agentId}`)
        .map((e) => e.status),
    ).toEqual([429, 200]);
  });
});

const { redisUrl } = services();
(redisUrl ? describe : describe.skip)('a Hub whose Redis (its idempotency records) stops answering for a while', () => {
  let proxy: TcpProxy;
  let redis: Redis;
  beforeAll(async () => {
    const real = new URL(redisUrl!);
    proxy = new TcpProxy({ host: real.hostname, port: Number(real.port || 6379) });
    await proxy.up();
    redis = await openRedis(proxy.urlFor(redisUrl!), captureLogs().logger);
  });
  const h = useHub({ HUB_REDIS_PROBE_INTERVAL_MS: '300' }, () => redis);
  afterAll(async () => {
    redis.disconnect();
    await proxy.cut();
  });

  test('when a write meets 503 SERVICE_UNAVAILABLE, then the client retries with the same request_id until Redis is back: one event', async () => {
    const customerId = randomUUID();
    await sb.createAccount({ email: PERSON });
    await connectToSandbox(h.hub, sb, { email: PERSON, integration: 'google_calendar', customerId });
    const client = createHubClient({ baseUrl: h.url, serviceSecret: SECRET_A, maxRetries: 20 });
    proxy.blackhole();
    setTimeout(() => proxy.resume(), 2_500);
    const requestId = `outage-${customerId}`;
    const answer = await client.execute(
      'calendar_create_event',
      { title: 'Through the outage', start: '2027-01-21T10:00:00Z', end: '2027-01-21T11:00:00Z' },
      { customerId, agentId: randomUUID(), requestId },
    );
    if (!answer.ok) throw new Error(JSON.stringify(answer.error));
    expect(answer.attempts).toBeGreaterThan(1);
    const statuses = h.hub.logs
      .entries()
      .filter((e) => (e.msg === 'request completed' || e.msg === 'request failed') && e.request_id === requestId)
      .map((e) => e.status);
    expect(statuses.slice(0, -1).every((s) => s === 503)).toBe(true);
    expect(statuses.at(-1)).toBe(200);
    expect(
      storedEvents(sb, PERSON)
        .filter((e) => e.fields.summary === 'Through the outage')
        .map((e) => e.id),
    ).toEqual([answer.result.event_id]);
  });
});
