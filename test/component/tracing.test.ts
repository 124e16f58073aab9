import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { connectToSandbox, sandboxHubEnv } from '../helpers/connected';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { type TestSandbox, startTestSandbox } from '../helpers/sandbox';

/**
 * Tracing as an operator sees it, with the OpenTelemetry SDK's in-memory exporter in place of OTLP: one call
 * carrying an agent's `traceparent` yields one trace — the agent's — with the Hub's spans in the expected tree.
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const AGENT_SPAN = '00f067aa0ba902b7';
const traceparent = `00-${TRACE_ID}-${AGENT_SPAN}-01`;

let sb: TestSandbox;
let hub: TestHub;
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable()); // what the Node SDK installs
  sb = await startTestSandbox();
  hub = await buildTestHub({ env: sandboxHubEnv(sb), tracer: provider.getTracer('hub') });
});
afterAll(async () => {
  await hub.close();
  await sb.close();
  await provider.shutdown();
  context.disable();
});
beforeEach(() => exporter.reset());
afterEach(() => sb.control('DELETE', '/faults'));

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

test('when an agent calls a Google tool with a traceparent, then one trace continues it: execute → rate limit, credentials, token refresh, each Google attempt', async () => {
  const email = `${randomUUID().slice(0, 8)}@acme.example`;
  await sb.createAccount({ email, time_zone: 'Europe/Madrid' });
  const who = await connectToSandbox(hub, sb, { email, integration: 'google_calendar', expiresInS: 120 }); // refreshed first
  await sb.control('POST', '/faults', { operation: 'calendar.settings.get', preset: 'unavailable', times: 1 });
  const res = await client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .set('traceparent', traceparent)
    .send({ tool: 'test_calendar_timezone', agent_id: randomUUID(), customer_id: who.customerId, inputs: {} })
    .expect(200);
  expect(res.body.metadata.trace_id).toBe(TRACE_ID);

  const spans = exporter.getFinishedSpans();
  expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([TRACE_ID]));
  const [execute] = named(spans, 'hub.execute');
  expect(named(spans, 'hub.execute')).toHaveLength(1);
  expect(parentOf(execute!)).toBe(AGENT_SPAN);
  expect(execute!.attributes).toMatchObject({ 'hub.tool': 'test_calendar_timezone', 'hub.tool.version': '1.0.0', 'hub.outcome': 'ok', 'hub.api_calls': 3 });
  const executeId = execute!.spanContext().spanId;

  expect(named(spans, 'hub.rate_limit').map(parentOf)).toEqual([executeId]);
  expect(named(spans, 'hub.credentials').map(parentOf)).toEqual([executeId]);
  const [refresh] = named(spans, 'hub.token_refresh');
  expect(refresh!.attributes).toMatchObject({ 'hub.integration': 'google_calendar', 'hub.outcome': 'ok' });
  expect([executeId, named(spans, 'hub.credentials')[0]!.spanContext().spanId]).toContain(parentOf(refresh!));
  const attempts = named(spans, 'calendar.settings.get').sort(
    (a, b) => Number(a.attributes['hub.google.attempt']) - Number(b.attributes['hub.google.attempt']),
  );
  expect(attempts.map((a) => [parentOf(a), a.attributes['hub.google.attempt'], a.attributes['hub.google.status_class']])).toEqual([
    [executeId, 1, '5xx'],
    [executeId, 2, '2xx'],
  ]);
  expect(attempts[0]!.attributes).toMatchObject({ 'hub.google.operation': 'calendar.settings.get', 'http.response.status_code': 503 });
  // Nothing else: every span of the call is accounted for.
  expect(spans).toHaveLength(6);
  // The access line names the trace and the caller.
  const line = hub.logs.entries().find((e) => e.msg === 'request completed' && e.trace_id === TRACE_ID);
  expect(line).toMatchObject({ customer_id: who.customerId, tool: 'test_calendar_timezone', user_id: null });
});

test('when a write with a request_id is traced, then its tool run sits under an idempotency span, and the replay says so', async () => {
  const body = anExecuteBody({ tool: 'test_write', inputs: { tag: `t-${randomUUID()}` }, context: { request_id: `r-${randomUUID()}` } });
  await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).set('traceparent', traceparent).send(body).expect(200);
  await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body).expect(200);
  const spans = exporter.getFinishedSpans();
  const executes = named(spans, 'hub.execute');
  const idempotency = named(spans, 'hub.idempotency');
  expect(executes).toHaveLength(2);
  expect(idempotency.map((s) => [parentOf(s), s.attributes['hub.idempotent_replay']])).toEqual([
    [executes[0]!.spanContext().spanId, false],
    [executes[1]!.spanContext().spanId, true],
  ]);
  expect(executes[0]!.spanContext().traceId).toBe(TRACE_ID);
  expect(executes[1]!.spanContext().traceId).not.toBe(TRACE_ID); // no traceparent: a trace of its own
  expect(executes[1]!.attributes).toMatchObject({ 'hub.idempotent_replay': true, 'hub.api_calls': 0 });
});

test('when a traceparent is malformed, then the call starts a trace of its own and still answers', async () => {
  const res = await client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .set('traceparent', `00-${'0'.repeat(32)}-${AGENT_SPAN}-01`)
    .send(anExecuteBody())
    .expect(200);
  expect(res.body.metadata.trace_id).toMatch(/^[0-9a-f]{32}$/);
  expect(res.body.metadata.trace_id).not.toBe('0'.repeat(32));
  expect(parentOf(named(exporter.getFinishedSpans(), 'hub.execute')[0]!)).toBeUndefined();
});
