import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ADMIN_OPERATIONS, type HubAdminClient, createHubAdminClient, createHubClient, verifyWebhook } from '../../packages/client/src/index';
import { adminToken } from '../helpers/admin';
import { connectToSandbox, sandboxHubEnv } from '../helpers/connected';
import { SECRET_A } from '../helpers/env';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * The admin client against a real Hub over HTTP: every family of the admin API — connect links and connections,
 * working hours, the overview and customers, receipts and replay bundles, policies guarded by ETag, service keys,
 * webhook endpoints with their secret, rotation and delivery log — through the generated methods, failures as
 * narrowed values. And the method table the client is built from matches openapi.yaml's admin operations.
 */

jest.setTimeout(60_000);
const sb = useTestSandbox();
const ROOT = join(__dirname, '..', '..');
const PERSON = 'ana@acme.example';

let hub: TestHub;
let server: Server;
let receiver: Server;
let url: string;
let admin: HubAdminClient;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hub = await buildTestHub({
    env: sandboxHubEnv(sb, { HUB_WEBHOOK_ALLOW_PRIVATE: 'true', HUB_WEBHOOK_POLL_MS: '25', HUB_WEBHOOK_RETRY_BASE_MS: '50', HUB_AUDIT_FLUSH_MS: '20' }),
  });
  server = hub.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  admin = createHubAdminClient({ baseUrl: url, adminToken: adminToken({ role: 'hub_admin' }) });
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await hub.close();
  await new Promise((r) => receiver.close(r));
});
beforeEach(() => sb.createAccount({ email: PERSON, time_zone: 'Europe/Madrid' }));

/** The value of a success, or the test fails with the error. */
function value<T>(answer: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!answer.ok) throw new Error(JSON.stringify(answer.error));
  return answer.value;
}

test('when openapi.yaml has admin operations, then the client has exactly those methods, sent the way the spec says', () => {
  const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const inSpec = Object.entries(spec.paths)
    .filter(([path]) => path.startsWith('/api/admin/'))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
        .map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
    );
  const inClient = Object.entries(ADMIN_OPERATIONS).map(([id, op]) => `${id} ${op.method} ${op.path}`);
  expect(inClient.sort()).toEqual(inSpec.sort());
  expect(Object.keys(admin).sort()).toEqual(Object.keys(ADMIN_OPERATIONS).sort());
});

test('when an admin makes a connect link and manages connections, then each answer is typed and narrowed', async () => {
  const customer_id = randomUUID();
  const link = await admin.createConnectLink({ body: { customer_id, integration: 'google_calendar', user_id: 'user-7' } });
  expect(link).toMatchObject({ ok: true, status: 201, value: { intent: 'connect', url: expect.stringContaining('/integrations/google/connect?') } });
  await connectToSandbox(hub, sb, { email: PERSON, integration: 'google_calendar', customerId: customer_id });
  const connections = value(await admin.listCustomerIntegrations({ customer_id }));
  expect(connections.integrations.map((c) => [c.integration, c.status, c.user_id])).toEqual([['google_calendar', 'connected', null]]);
  const hours = value(await admin.setWorkingHours({ customer_id, body: { start: '08:30', end: '16:00', days: ['monday', 'tuesday'] } }));
  expect(hours).toMatchObject({ working_hours_source: 'admin', working_hours: { start: '08:30', end: '16:00' } });
  expect(value(await admin.clearWorkingHours({ customer_id })).working_hours_source).toBe('default');
  expect(value(await admin.getOverview({ window: '1h', customer_id })).window).toBe('1h');
  expect(value(await admin.listCustomers({ limit: 100 })).customers.map((c) => c.customer_id)).toContain(customer_id);
  const gone = value(await admin.disconnectIntegration({ customer_id, integration: 'google_calendar' }));
  expect(gone).toMatchObject({ disconnected: true, revoked_at_google: true });
  const invalid = await admin.listCustomerIntegrations({ customer_id: 'not-a-uuid' });
  if (invalid.ok || invalid.error.code !== 'VALIDATION_ERROR') throw new Error(`expected VALIDATION_ERROR: ${JSON.stringify(invalid)}`);
  expect(invalid.error.details.issues.length).toBeGreaterThan(0);
});

test('when agents call tools, then their receipts and the conversation’s replay bundle come through the admin client', async () => {
  const customer_id = randomUUID();
  const conversationId = `conv-${randomUUID()}`;
  const hubClient = createHubClient({ baseUrl: url, serviceSecret: SECRET_A });
  const echo = await hubClient.execute('hub_echo@1', { message: 'for the record' }, { customerId: customer_id, agentId: randomUUID(), conversationId });
  expect(echo).toMatchObject({ ok: true, metadata: { tool_version: '1.0.0' } });
  await hub.audit.drain();
  const listed = value(await admin.listReceipts({ customer_id, conversation_id: conversationId }));
  expect(listed.receipts.map((r) => [r.tool, r.outcome])).toEqual([['hub_echo@1', 'ok']]); // the tool as the call named it
  const one = value(await admin.getReceipt({ customer_id, call_id: listed.receipts[0]!.call_id }));
  expect(one.receipts[0]?.request_id).toBe(listed.receipts[0]!.request_id);
  const bundle = value(await admin.getReplayBundle({ customer_id, conversation_id: conversationId }));
  expect(bundle.receipts).toHaveLength(1);
  const none = await admin.getReplayBundle({ customer_id, conversation_id: 'nothing-here' });
  expect(none).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND', status: 404 } });
});

test('when policies are written, then If-Match guards them: created 201, replaced 200 with the ETag, refused without or with a stale one', async () => {
  const customer_id = randomUUID();
  const agent_id = randomUUID();
  expect(await admin.getCustomerPolicy({ customer_id })).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND' } });
  const created = await admin.putCustomerPolicy({ customer_id, body: { enabled_tools: ['hub_echo'] } });
  if (!created.ok || created.status !== 201) throw new Error(JSON.stringify(created));
  expect(created.etag).toBe(`"${created.value.etag}"`);
  expect(await admin.putCustomerPolicy({ customer_id, body: { enabled_tools: null } })).toMatchObject({ ok: false, error: { code: 'PRECONDITION_REQUIRED' } });
  const replaced = await admin.putCustomerPolicy({ customer_id, ifMatch: created.etag!, body: { max_side_effects: 'reads' } });
  if (!replaced.ok) throw new Error(JSON.stringify(replaced.error));
  expect(replaced).toMatchObject({ status: 200, value: { rules: { max_side_effects: 'reads' } } });
  expect(await admin.deleteCustomerPolicy({ customer_id, ifMatch: created.value.etag })).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED' } });
  const agent = value(await admin.putAgentPolicy({ customer_id, agent_id, body: { require_conversation_id: true } }));
  expect(value(await admin.getAgentPolicy({ customer_id, agent_id })).etag).toBe(agent.etag);
  expect(value(await admin.deleteAgentPolicy({ customer_id, agent_id, ifMatch: agent.etag })).deleted).toBe(true);
  expect(value(await admin.deleteCustomerPolicy({ customer_id, ifMatch: replaced.value.etag })).deleted).toBe(true);
});

test('when a service key is made, then it works as the service client’s secret until it is revoked', async () => {
  const customerId = randomUUID();
  const made = value(await admin.createServiceKey({ body: { name: 'client-test', customer_ids: [customerId], tools: ['hub_echo'] } }));
  const keyed = createHubClient({ baseUrl: url, serviceSecret: made.key });
  expect(await keyed.execute('hub_echo', { message: 'hi' }, { customerId, agentId: randomUUID() })).toMatchObject({ ok: true, result: { message: 'hi' } });
  const outside = await keyed.execute('hub_echo', { message: 'hi' }, { customerId: randomUUID(), agentId: randomUUID() });
  if (outside.ok || outside.error.code !== 'FORBIDDEN') throw new Error(`expected FORBIDDEN: ${JSON.stringify(outside)}`);
  expect(outside.error.details?.reason).toBe('customer_out_of_scope');
  expect(value(await admin.listServiceKeys()).service_keys.map((k) => k.id)).toContain(made.id);
  expect(value(await admin.getServiceKey({ id: made.id })).name).toBe('client-test');
  expect(value(await admin.revokeServiceKey({ id: made.id })).status).toBe('revoked');
  expect(await keyed.execute('hub_echo', { message: 'hi' }, { customerId, agentId: randomUUID() })).toMatchObject({
    ok: false,
    error: { code: 'UNAUTHORIZED' },
  });
});

test('when a customer has a webhook endpoint, then its events verify with the secret the admin client got, before and after a rotation', async () => {
  const customer_id = randomUUID();
  const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${customer_id}`;
  const set = await admin.setWebhookEndpoint({ customer_id, body: { url: target } });
  if (!set.ok || set.status !== 201) throw new Error(JSON.stringify(set));
  const secret = set.value.secret;
  expect(value(await admin.getWebhookEndpoint({ customer_id })).url).toBe(target);
  await connectToSandbox(hub, sb, { email: PERSON, integration: 'google_gmail', customerId: customer_id });
  value(await admin.disconnectIntegration({ customer_id, integration: 'google_gmail' }));
  const until = Date.now() + 10_000;
  let delivery: (typeof received)[number] | undefined;
  while (!(delivery = received.find((r) => r.body.includes(customer_id))) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  const verified = await verifyWebhook(delivery!.body, delivery!.headers, secret);
  expect(verified).toMatchObject({ ok: true, event: { type: 'connection.disconnected', data: { customer_id } } });
  await hub.webhooks.settled();
  const log = value(await admin.listWebhookDeliveries({ customer_id, state: 'delivered' }));
  expect(log.deliveries.map((d) => [d.type, d.target])).toContainEqual(['connection.disconnected', 'customer']);
  const rotated = value(await admin.rotateWebhookSecret({ customer_id }));
  expect(rotated.secret).not.toBe(secret);
  expect(rotated.previous_secret_valid_until).not.toBeNull();
  expect(value(await admin.deleteWebhookEndpoint({ customer_id })).deleted).toBe(true);
});

test('when a token is scoped to one customer, then another customer is FORBIDDEN and a wrong token UNAUTHORIZED', async () => {
  const own = randomUUID();
  const scoped = createHubAdminClient({ baseUrl: url, adminToken: adminToken({ customer_id: own }) });
  expect(await scoped.listCustomerIntegrations({ customer_id: own })).toMatchObject({ ok: true, status: 200, value: { integrations: [] } });
  expect(await scoped.listCustomerIntegrations({ customer_id: randomUUID() })).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', status: 403 } });
  const wrong = createHubAdminClient({ baseUrl: url, adminToken: 'not-a-jwt' });
  expect(await wrong.listServiceKeys()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED', status: 401 } });
});
