import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { CALENDAR_SCOPES, aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * Scoped service keys: made through the admin API and shown once, stored only as a hash, presented the
 * contract's way (`ServiceSecret <key>`); a call outside the key's scope is 403 FORBIDDEN before any lookup or
 * rate-limit charge; expired and revoked keys are refused; HUB_SERVICE_SECRETS work exactly as before.
 */

let hub: TestHub;
const api = () => client(hub.app);
beforeAll(async () => {
  // A small customer limit shows an out-of-scope call does not spend the other customer's points.
  hub = await buildTestHub({ env: { HUB_RATE_LIMIT_CUSTOMER_POINTS: '3', HUB_RATE_LIMIT_AGENT_POINTS: '100' } });
});
afterAll(() => hub.close());

const createKey = (body: Record<string, unknown>, auth = asAdmin()) => api().post('/api/admin/service-keys').set('Authorization', auth).send(body);
const execute = (key: string, body: { customer_id: string; agent_id?: string; tool?: string; inputs?: Record<string, unknown> }) =>
  api()
    .post('/api/internal/tools/execute/')
    .set('Authorization', `ServiceSecret ${key}`)
    .send({ tool: body.tool ?? 'hub_echo', agent_id: body.agent_id ?? randomUUID(), customer_id: body.customer_id, inputs: body.inputs ?? { message: 'hi' } });

describe('making and reading keys', () => {
  test('when an admin makes a key, then its value is in that answer only and the database holds just its hash', async () => {
    const customerId = randomUUID();
    const res = await createKey({ name: 'scheduler', customer_ids: [customerId] }).expect(201);
    expect(res.body.key).toMatch(/^hub_sk_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({
      name: 'scheduler',
      customer_ids: [customerId],
      agent_id: null,
      tools: null,
      status: 'active',
      last_used_at: null,
      expires_at: null,
    });
    const one = await api().get(`/api/admin/service-keys/${res.body.id}`).set('Authorization', asAdmin()).expect(200);
    expect(one.body).not.toHaveProperty('key');
    const list = await api().get('/api/admin/service-keys').set('Authorization', asAdmin()).expect(200);
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);
    const rows = await hub.testDb.db.query<Record<string, unknown>>('SELECT * FROM hub_service_keys WHERE id = $1', [res.body.id]);
    expect(JSON.stringify(rows)).not.toContain(res.body.key);
  });

  test.each([
    ['no customer scope stated', { name: 'x' }, 'customer_ids'],
    ['an empty customer list', { name: 'x', customer_ids: [] }, 'customer_ids'],
    ['an unknown tool', { name: 'x', customer_ids: 'all', tools: ['hub_echo', 'nope_tool'] }, 'tools[1]'],
    ['an expiry in the past', { name: 'x', customer_ids: 'all', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ['an agent id that is not a UUID', { name: 'x', customer_ids: 'all', agent_id: 'bot' }, 'agent_id'],
  ])('when the request has %s, then VALIDATION_ERROR names the field', async (_what, body, path) => {
    const res = await createKey(body).expect(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  test('when a customer token (not hub_admin) manages keys, then 403 FORBIDDEN', async () => {
    const customerId = randomUUID();
    await createKey({ name: 'x', customer_ids: [customerId] }, asCustomer(customerId)).expect(403);
    await api().get('/api/admin/service-keys').set('Authorization', asCustomer(customerId)).expect(403);
  });
});

describe('using a key', () => {
  test('when a key acts within its scope, then the call runs and last_used_at shows it', async () => {
    const customerId = randomUUID();
    const { body: made } = await createKey({ name: 'k', customer_ids: [customerId] }).expect(201);
    await execute(made.key, { customer_id: customerId }).expect(200);
    const seen = await api().get(`/api/admin/service-keys/${made.id}`).set('Authorization', asAdmin()).expect(200);
    expect(seen.body.last_used_at).not.toBeNull();
    await hub.access.close(); // what a stopping replica does: the use is written
    expect((await hub.access.keyStore.get(made.id))!.lastUsedAt).not.toBeNull();
  });

  test("when a key acts for a customer outside its scope, then 403 FORBIDDEN before any lookup, charged to the key, and the other customer's limit is untouched", async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    await hub.store.save(aCredential({ customerId: theirs, integration: 'google_calendar', scopes: CALENDAR_SCOPES }));
    const { body: made } = await createKey({ name: 'k', customer_ids: [mine] }).expect(201);
    for (let i = 0; i < 3; i++) {
      const res = await execute(made.key, { customer_id: theirs, tool: 'test_calendar_probe', inputs: {} }).expect(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', retryable: false, details: { reason: 'customer_out_of_scope' } });
    }
    // The key's own refusals are limited (as much as one customer's calls): the next is 429, charged to the key.
    const limited = await execute(made.key, { customer_id: theirs, tool: 'test_calendar_probe', inputs: {} }).expect(429);
    expect(limited.body.error.details.scope).toBe('credential');
    // Their limit is 3 points per window: all three are still theirs.
    for (let i = 0; i < 3; i++) await execute(serviceAuth().slice('ServiceSecret '.length), { customer_id: theirs }).expect(200);
    await api().get(`/api/internal/integrations/status/${theirs}/`).set('Authorization', `ServiceSecret ${made.key}`).expect(403);
  });

  test('when a key is bound to an agent and a tool list, then another agent or tool is refused and the catalog shows only its tools', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    const { body: made } = await createKey({ name: 'k', customer_ids: 'all', agent_id: agentId, tools: ['hub_echo@1', 'test_write'] }).expect(201);
    await execute(made.key, { customer_id: customerId, agent_id: agentId }).expect(200);
    expect((await execute(made.key, { customer_id: customerId }).expect(403)).body.error.details.reason).toBe('agent_out_of_scope');
    const tool = await execute(made.key, { customer_id: customerId, agent_id: agentId, tool: 'test_calendar_probe', inputs: {} }).expect(403);
    expect(tool.body.error.details.reason).toBe('tool_out_of_scope');
    const catalog = await api().get('/api/internal/tools/').set('Authorization', `ServiceSecret ${made.key}`).expect(200);
    expect(catalog.body.tools.map((t: { name: string }) => t.name)).toEqual(['hub_echo', 'test_write']);
  });

  test('when a key expires, then it is refused with 401', async () => {
    const customerId = randomUUID();
    const { body: made } = await createKey({ name: 'short', customer_ids: [customerId], expires_at: new Date(Date.now() + 1500).toISOString() }).expect(201);
    await execute(made.key, { customer_id: customerId }).expect(200);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await execute(made.key, { customer_id: customerId }).expect(401);
    expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: 'This service key has expired' });
    expect((await api().get(`/api/admin/service-keys/${made.id}`).set('Authorization', asAdmin()).expect(200)).body.status).toBe('expired');
  });

  test('when a key is revoked, then the next call with it is refused with 401 and the key shows as revoked', async () => {
    const customerId = randomUUID();
    const { body: made } = await createKey({ name: 'k', customer_ids: [customerId] }).expect(201);
    await execute(made.key, { customer_id: customerId }).expect(200);
    const revoked = await api().delete(`/api/admin/service-keys/${made.id}`).set('Authorization', asAdmin()).expect(200);
    expect(revoked.body).toMatchObject({ status: 'revoked' });
    expect(revoked.body.revoked_at).not.toBeNull();
    await execute(made.key, { customer_id: customerId }).expect(401);
    await api().delete(`/api/admin/service-keys/${randomUUID()}`).set('Authorization', asAdmin()).expect(404);
  });

  test('when a made-up key or a near miss of a real one is presented, then 401 as for a wrong secret', async () => {
    const { body: made } = await createKey({ name: 'k', customer_ids: 'all' }).expect(201);
    const nearMiss = `${made.key.slice(0, -1)}${made.key.endsWith('A') ? 'B' : 'A'}`;
    for (const key of [nearMiss, 'hub_sk_nope']) {
      const res = await execute(key, { customer_id: randomUUID() }).expect(401);
      expect(res.body.error.message).toBe('Invalid service secret');
    }
  });

  test('when a configured service secret is used, then it acts for any customer as before', async () => {
    await api().get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    await execute(serviceAuth().slice('ServiceSecret '.length), { customer_id: randomUUID() }).expect(200);
  });
});
