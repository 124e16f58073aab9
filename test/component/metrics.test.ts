import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { connectToSandbox, runTool, sandboxHubEnv } from '../helpers/connected';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { type TestSandbox, startTestSandbox } from '../helpers/sandbox';
import { captureLogs } from '../helpers/logs';
import { testConfig } from '../helpers/env';
import { startHub } from '../../src/server';

/**
 * GET /metrics after a known sequence of calls — echoes, an unknown tool, a Google call with two 503s, an agent
 * over its limit, refreshes that succeed, are refused and fail, a replayed write — reads back exactly those
 * counts, and never a customer, agent or user id.
 */

let sb: TestSandbox;
let hub: TestHub;
const ids: string[] = [];

/** One sample's value from the exposition text (0 when the series does not exist). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
const scrape = async (on: TestHub = hub) => (await client(on.app).get('/metrics').expect(200)).text;

async function account() {
  const email = `${randomUUID().slice(0, 8)}@acme.example`;
  await sb.createAccount({ email, time_zone: 'Europe/Madrid' });
  return email;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  hub = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_RATE_LIMIT_AGENT_POINTS: '10', HUB_GOOGLE_MAX_RETRIES: '2' }) });
});
afterAll(async () => {
  await hub.close();
  await sb.close();
});
afterEach(() => sb.control('DELETE', '/faults'));

test('when a known sequence of calls has run, then /metrics counts exactly those calls, attempts, retries, rejections, refreshes and replays', async () => {
  const echo = (agentId = randomUUID(), customerId = randomUUID()) => {
    ids.push(agentId, customerId);
    return client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send(anExecuteBody({ agent_id: agentId, customer_id: customerId, user_id: 'user-7781' }));
  };
  await echo().expect(200);
  await echo().expect(200);
  await client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send(anExecuteBody({ tool: 'no_such_tool' }))
    .expect(404);

  // One agent over its limit (10 points, an echo costs 1): the eleventh call is refused.
  const busyAgent = randomUUID();
  const busyCustomer = randomUUID();
  for (let i = 0; i < 10; i++) await echo(busyAgent, busyCustomer).expect(200);
  await echo(busyAgent, busyCustomer).expect(429);

  // A Google read that meets two 503s: three attempts, two retries, one success.
  const fine = await connectToSandbox(hub, sb, { email: await account(), integration: 'google_calendar' });
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'unavailable', times: 2 });
  expect((await runTool(hub, fine, 'test_calendar_timezone', {}).expect(200)).body.metadata.api_calls).toBe(3);
  await sb.control('DELETE', '/faults');

  // Refreshes: one succeeds; one fails while Google's token endpoint is down (the token still serves); one is refused.
  const refreshed = await connectToSandbox(hub, sb, { email: await account(), integration: 'google_calendar', expiresInS: 120 });
  await runTool(hub, refreshed, 'test_calendar_timezone', {}).expect(200);
  const riding = await connectToSandbox(hub, sb, { email: await account(), integration: 'google_calendar', expiresInS: 120 });
  await sb.control('POST', '/faults', { operation: 'oauth.token', preset: 'unavailable', times: 1 });
  await runTool(hub, riding, 'test_calendar_timezone', {}).expect(200);
  await sb.control('DELETE', '/faults');
  const revokedEmail = await account();
  const revoked = await connectToSandbox(hub, sb, { email: revokedEmail, integration: 'google_calendar', expiresInS: 120 });
  await sb.control('POST', `/accounts/${revokedEmail}/revoke`);
  expect((await runTool(hub, revoked, 'test_calendar_timezone', {}).expect(401)).body.error.code).toBe('INTEGRATION_EXPIRED');
  ids.push(fine.customerId, refreshed.customerId, riding.customerId, revoked.customerId);

  // A write with a request_id, retried: the second answer is the replay.
  const write = { tool: 'test_write', inputs: { tag: `m-${randomUUID()}` }, context: { request_id: `r-${randomUUID()}` } };
  const writer = anExecuteBody(write);
  await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(writer).expect(200);
  const again = await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(writer).expect(200);
  expect(again.body.metadata.idempotent_replay).toBe(true);

  hub.metrics.auditDropped(3); // what the audit writer reports when it gives receipts up

  const text = await scrape();
  expect(sample(text, 'hub_tool_calls_total{tool="hub_echo",outcome="ok"}')).toBe(12);
  expect(sample(text, 'hub_tool_calls_total{tool="hub_echo",outcome="RATE_LIMITED"}')).toBe(1);
  expect(sample(text, 'hub_tool_calls_total{tool="(unknown)",outcome="TOOL_NOT_FOUND"}')).toBe(1);
  expect(sample(text, 'hub_tool_calls_total{tool="test_calendar_timezone",outcome="ok"}')).toBe(3);
  expect(sample(text, 'hub_tool_calls_total{tool="test_calendar_timezone",outcome="INTEGRATION_EXPIRED"}')).toBe(1);
  expect(sample(text, 'hub_tool_calls_total{tool="test_write",outcome="ok"}')).toBe(2);
  expect(sample(text, 'hub_tool_call_duration_seconds_count{tool="hub_echo"}')).toBe(13);
  expect(sample(text, 'hub_tool_call_duration_seconds_count{tool="test_calendar_timezone"}')).toBe(4);
  expect(sample(text, 'hub_rate_limit_rejections_total{scope="agent"}')).toBe(1);
  expect(sample(text, 'hub_google_requests_total{operation="calendar.settings.get",status_class="5xx"}')).toBe(2);
  expect(sample(text, 'hub_google_requests_total{operation="calendar.settings.get",status_class="2xx"}')).toBe(3);
  // the same attempts by provider, beside Microsoft Graph's
  expect(sample(text, 'hub_vendor_requests_total{provider="google",operation="calendar.settings.get",status_class="5xx"}')).toBe(2);
  expect(sample(text, 'hub_vendor_requests_total{provider="google",operation="calendar.settings.get",status_class="2xx"}')).toBe(3);
  expect(sample(text, 'hub_google_request_duration_seconds_count{operation="calendar.settings.get"}')).toBe(5);
  expect(sample(text, 'hub_google_retries_total{operation="calendar.settings.get"}')).toBe(2);
  expect(sample(text, 'hub_token_refreshes_total{provider="google",result="ok"}')).toBe(1);
  expect(sample(text, 'hub_token_refreshes_total{provider="google",result="transient"}')).toBe(1);
  expect(sample(text, 'hub_token_refreshes_total{provider="google",result="invalid_grant"}')).toBe(1);
  expect(sample(text, 'hub_idempotent_replays_total{tool="test_write"}')).toBe(1);
  expect(sample(text, 'hub_audit_dropped_total')).toBe(3);
  expect(sample(text, 'hub_idempotency_unrecorded_outcomes')).toBe(0); // test_write's record is stored before its answer
  expect(sample(text, 'hub_circuit_breaker_state{integration="google_calendar"}')).toBe(0);
  expect(sample(text, 'hub_connections{integration="google_calendar",status="connected"}')).toBe(3);
  expect(sample(text, 'hub_connections{integration="google_calendar",status="expired"}')).toBe(1);
  expect(text).toMatch(/^process_cpu_user_seconds_total \d/m); // the default process metrics
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  // Identities never become label values.
  for (const id of [...ids, 'user-7781']) expect(text).not.toContain(id);
});

test('when HUB_METRICS_TOKEN is set, then /metrics answers only the bearer of that token', async () => {
  const token = 'metrics-token-0123456789abcdef';
  const guarded = await buildTestHub({ env: { HUB_METRICS_TOKEN: token } });
  try {
    const none = await client(guarded.app).get('/metrics').expect(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    expect(none.headers['www-authenticate']).toBe('Bearer realm="hub-metrics"');
    await client(guarded.app).get('/metrics').set('Authorization', `Bearer ${token}x`).expect(401);
    await client(guarded.app).get('/metrics').set('Authorization', `ServiceSecret ${token}`).expect(401);
    const ok = await client(guarded.app).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.text).toContain('# TYPE hub_tool_calls_total counter');
    expect(guarded.logs.text()).not.toContain(token);
  } finally {
    await guarded.close();
  }
});

test('when HUB_METRICS=off, then nothing is recorded and /metrics does not exist', async () => {
  const off = await buildTestHub({ env: { HUB_METRICS: 'off' } });
  try {
    await client(off.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200);
    expect((await client(off.app).get('/metrics').expect(404)).body.error.code).toBe('RESOURCE_NOT_FOUND');
  } finally {
    await off.close();
  }
});

test("when HUB_METRICS_PORT is set, then /metrics is served on that listener only, counting the API port's calls", async () => {
  const running = await startHub(testConfig({ HUB_METRICS_PORT: '0' }), { logger: captureLogs().logger });
  try {
    expect(running.metricsServer).toBeDefined();
    const metricsUrl = `http://127.0.0.1:${running.metricsServer!.port}`;
    await request(running.url).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200);
    await request(running.url).get('/metrics').expect(404);
    const res = await request(metricsUrl).get('/metrics').expect(200);
    expect(sample(res.text, 'hub_tool_calls_total{tool="hub_echo",outcome="ok"}')).toBe(1);
    await request(metricsUrl).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(404);
  } finally {
    await running.close();
  }
}, 90_000); // a whole server start (embedded database included) on a loaded machine
