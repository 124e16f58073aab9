import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { CALENDAR_SCOPES, aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * Policies per customer and per (customer, agent): each rule allows and refuses, the agent's policy overrides
 * the customer's field by field, a refusal is 403 POLICY_DENIED before any credential lookup (a customer with
 * no connection gets POLICY_DENIED, not INTEGRATION_NOT_CONNECTED), the admin API is versioned with ETags, and
 * the catalog and status endpoint answer "for this agent".
 */

let hub: TestHub;
const api = () => client(hub.app);
beforeAll(async () => {
  hub = await buildTestHub();
});
afterAll(() => hub.close());

const customerPath = (customerId: string) => `/api/admin/customers/${customerId}/policy`;
const agentPath = (customerId: string, agentId: string) => `/api/admin/customers/${customerId}/agents/${agentId}/policy`;
const putPolicy = (path: string, rules: unknown, ifMatch?: string) => {
  const req = api().put(path).set('Authorization', asAdmin());
  if (ifMatch !== undefined) req.set('If-Match', ifMatch);
  return req.send(rules as object);
};
const call = (
  customerId: string,
  tool: string,
  inputs: Record<string, unknown> = {},
  options: { agentId?: string; conversationId?: string; requestId?: string } = {},
) =>
  api()
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({
      tool,
      agent_id: options.agentId ?? randomUUID(),
      customer_id: customerId,
      inputs,
      context: { conversation_id: options.conversationId ?? null, request_id: options.requestId ?? null },
    });
const echo = (customerId: string, options: Parameters<typeof call>[3] = {}) => call(customerId, 'hub_echo', { message: 'hi' }, options);

describe('the admin API', () => {
  test('when a policy is created, read, replaced with its ETag and deleted, then each step answers as documented', async () => {
    const customerId = randomUUID();
    const created = await putPolicy(customerPath(customerId), { enabled_tools: ['hub_echo'] }).expect(201);
    expect(created.headers.etag).toBe(`"${created.body.etag}"`);
    expect(created.body).toMatchObject({ customer_id: customerId, agent_id: null, scope: 'customer', denies_everything: false, tools_allowed: ['hub_echo'] });
    expect(created.body.effective).toEqual({
      enabled_tools: ['hub_echo'],
      max_side_effects: 'writes',
      max_tool_calls_per_conversation: 25,
      email_allowed_recipient_domains: null,
      require_request_id_for_writes: false,
      require_conversation_id: false,
      max_conversations_per_agent_per_hour: null,
    });
    const read = await api().get(customerPath(customerId)).set('Authorization', asAdmin()).expect(200);
    expect(read.body.etag).toBe(created.body.etag);

    const replaced = await putPolicy(customerPath(customerId), { max_side_effects: 'reads' }, created.headers.etag).expect(200);
    expect(replaced.body.etag).not.toBe(created.body.etag);
    expect(replaced.body.rules).toEqual({ max_side_effects: 'reads' });

    await api()
      .delete(customerPath(customerId))
      .set('Authorization', asAdmin())
      .set('If-Match', replaced.headers.etag!)
      .expect(200, { customer_id: customerId, agent_id: null, deleted: true });
    const gone = await api().get(customerPath(customerId)).set('Authorization', asAdmin()).expect(404);
    expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  test('when two admins edit the same policy, then the second one gets 412 (stale ETag) or 428 (no ETag), never a silent overwrite', async () => {
    const customerId = randomUUID();
    const first = await putPolicy(customerPath(customerId), { max_side_effects: 'writes' }).expect(201);
    const noEtag = await putPolicy(customerPath(customerId), { max_side_effects: 'reads' }).expect(428);
    expect(noEtag.body).toMatchObject({ success: false, error: { code: 'PRECONDITION_REQUIRED', retryable: false } });
    await putPolicy(customerPath(customerId), { require_request_id_for_writes: true }, first.headers.etag).expect(200);
    const stale = await putPolicy(customerPath(customerId), { max_side_effects: 'reads' }, first.headers.etag).expect(412);
    expect(stale.body).toMatchObject({ success: false, tool: null, error: { code: 'PRECONDITION_FAILED', retryable: false } });
    const staleDelete = await api().delete(customerPath(customerId)).set('Authorization', asAdmin()).set('If-Match', first.headers.etag!).expect(412);
    expect(staleDelete.body.error.code).toBe('PRECONDITION_FAILED');
    const now = await api().get(customerPath(customerId)).set('Authorization', asAdmin()).expect(200);
    expect(now.body.rules).toEqual({ require_request_id_for_writes: true });
    // A weak ETag never matches (If-Match compares strongly); `*` matches whatever is there.
    await putPolicy(customerPath(customerId), {}, `W/${now.headers.etag}`).expect(412);
    await putPolicy(customerPath(customerId), {}, '*').expect(200);
  });

  test("when an admin sends the body's etag back as If-Match without the header's quotes, then it is the same tag", async () => {
    const customerId = randomUUID();
    const created = await putPolicy(customerPath(customerId), { max_side_effects: 'writes' }).expect(201);
    expect(created.headers.etag).toBe(`"${created.body.etag}"`);
    const replaced = await putPolicy(customerPath(customerId), { max_side_effects: 'reads' }, created.body.etag).expect(200);
    await putPolicy(customerPath(customerId), {}, created.body.etag).expect(412); // still compared: a stale bare tag is stale
    await api().delete(customerPath(customerId)).set('Authorization', asAdmin()).set('If-Match', replaced.body.etag).expect(200);
  });

  test.each([
    ['an unknown tool', { enabled_tools: ['hub_echo', 'email_delete_everything'] }, 'enabled_tools[1]'],
    ['a major version the tool does not have', { enabled_tools: ['hub_echo@2'] }, 'enabled_tools[0]'],
    ['a malformed tool entry', { enabled_tools: ['hub_echo@1.2'] }, 'enabled_tools[0]'],
    ['a domain that is not one', { email_allowed_recipient_domains: ['acme example'] }, 'email_allowed_recipient_domains[0]'],
    ['a zero budget', { max_tool_calls_per_conversation: 0 }, 'max_tool_calls_per_conversation'],
    ['an unknown rule', { max_budget: 10 }, 'max_budget'],
  ])('when a policy has %s, then VALIDATION_ERROR names the field and nothing is stored', async (_what, rules, path) => {
    const customerId = randomUUID();
    const res = await putPolicy(customerPath(customerId), rules).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    await api().get(customerPath(customerId)).set('Authorization', asAdmin()).expect(404);
  });

  test('when a policy enables no tool at all, then it is stored and its answer says it denies everything', async () => {
    const customerId = randomUUID();
    const res = await putPolicy(customerPath(customerId), { enabled_tools: [] }).expect(201);
    expect(res.body).toMatchObject({ denies_everything: true, tools_allowed: [] });
    expect(res.body.warning).toMatch(/denies every tool/);
    const refused = await echo(customerId).expect(403);
    expect(refused.body.error).toMatchObject({ code: 'POLICY_DENIED', retryable: false, details: { rule: 'enabled_tools', policy: 'customer' } });
  });

  test("when a customer token manages its own policy, then it may; another customer's, then 403 FORBIDDEN", async () => {
    const customerId = randomUUID();
    await putPolicy(customerPath(customerId), {}).expect(201);
    await api().get(customerPath(customerId)).set('Authorization', asCustomer(customerId)).expect(200);
    const other = await api().get(customerPath(customerId)).set('Authorization', asCustomer(randomUUID())).expect(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
  });
});

describe('each rule, allowed and refused, before any credential lookup', () => {
  test('enabled_tools: a listed tool runs; an unlisted one is refused though the customer has no connection at all', async () => {
    const customerId = randomUUID();
    await putPolicy(customerPath(customerId), { enabled_tools: ['hub_echo@1', 'test_write'] }).expect(201);
    await echo(customerId).expect(200);
    const refused = await call(customerId, 'test_calendar_probe').expect(403);
    expect(refused.body).toMatchObject({
      success: false,
      tool: 'test_calendar_probe',
      error: { code: 'POLICY_DENIED', details: { rule: 'enabled_tools', policy: 'customer' } },
    });
    expect(refused.body.metadata.api_calls).toBe(0);
  });

  test('max_side_effects reads: a read runs, a write is refused', async () => {
    const customerId = randomUUID();
    await putPolicy(customerPath(customerId), { max_side_effects: 'reads' }).expect(201);
    await echo(customerId).expect(200);
    const refused = await call(customerId, 'calendar_create_event', { title: 'x', start: '2026-12-01T10:00:00Z', end: '2026-12-01T11:00:00Z' }).expect(403);
    expect(refused.body.error.details).toEqual({ rule: 'max_side_effects', policy: 'customer' });
  });

  test('require_request_id_for_writes: a write without request_id is refused; with one it goes on (to the connection lookup)', async () => {
    const customerId = randomUUID();
    await putPolicy(customerPath(customerId), { require_request_id_for_writes: true }).expect(201);
    const inputs = { title: 'x', start: '2026-12-01T10:00:00Z', end: '2026-12-01T11:00:00Z' };
    const refused = await call(customerId, 'calendar_create_event', inputs).expect(403);
    expect(refused.body.error.details).toEqual({ rule: 'require_request_id_for_writes', policy: 'customer' });
    const passed = await call(customerId, 'calendar_create_event', inputs, { requestId: `r-${randomUUID()}` }).expect(400);
    expect(passed.body.error.code).toBe('INTEGRATION_NOT_CONNECTED');
    await echo(customerId).expect(200); // reads need none
  });

  test('max_tool_calls_per_conversation: the budget runs out per conversation; other conversations and calls without one are not affected', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    await putPolicy(customerPath(customerId), { max_tool_calls_per_conversation: 3 }).expect(201);
    for (let i = 0; i < 3; i++) await echo(customerId, { agentId, conversationId: 'c-1' }).expect(200);
    const refused = await echo(customerId, { agentId, conversationId: 'c-1' }).expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'POLICY_DENIED',
      retryable: false,
      details: { rule: 'max_tool_calls_per_conversation', policy: 'customer', limit: 3 },
    });
    await echo(customerId, { agentId, conversationId: 'c-2' }).expect(200);
    for (let i = 0; i < 5; i++) await echo(customerId, { agentId }).expect(200);
  });

  test('when a policy leaves the budget out, then the default 25 applies; with no policy at all, nothing is counted', async () => {
    const withPolicy = randomUUID();
    const without = randomUUID();
    const agentId = randomUUID();
    await putPolicy(customerPath(withPolicy), { enabled_tools: null }).expect(201);
    for (let i = 0; i < 25; i++) await echo(withPolicy, { agentId, conversationId: 'long' }).expect(200);
    const refused = await echo(withPolicy, { agentId, conversationId: 'long' }).expect(403);
    expect(refused.body.error.details.limit).toBe(25);
    for (let i = 0; i < 30; i++) await echo(without, { agentId, conversationId: 'long' }).expect(200);
  });

  test('a refusal by a rule does not spend the conversation budget', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    await putPolicy(customerPath(customerId), { max_tool_calls_per_conversation: 2, max_side_effects: 'reads' }).expect(201);
    for (let i = 0; i < 3; i++) await call(customerId, 'test_write', { tag: 'x' }, { agentId, conversationId: 'c' }).expect(403);
    await echo(customerId, { agentId, conversationId: 'c' }).expect(200);
    await echo(customerId, { agentId, conversationId: 'c' }).expect(200);
  });
});

describe('customer and agent precedence', () => {
  test("when an agent has its own policy, then its fields override the customer's and the rest are inherited", async () => {
    const customerId = randomUUID();
    const [freed, readOnly, plain] = [randomUUID(), randomUUID(), randomUUID()];
    await putPolicy(customerPath(customerId), { enabled_tools: ['hub_echo', 'test_write'], max_tool_calls_per_conversation: 2 }).expect(201);
    const freedPolicy = await putPolicy(agentPath(customerId, freed), { enabled_tools: null, max_tool_calls_per_conversation: 4 }).expect(201);
    expect(freedPolicy.body).toMatchObject({ scope: 'agent', agent_id: freed, effective: { enabled_tools: null, max_tool_calls_per_conversation: 4 } });
    await putPolicy(agentPath(customerId, readOnly), { max_side_effects: 'reads' }).expect(201);

    // The customer's list binds `plain`; `freed` lifted it (null), so its call goes on to the connection lookup.
    expect((await call(customerId, 'test_calendar_probe', {}, { agentId: plain }).expect(403)).body.error.details).toEqual({
      rule: 'enabled_tools',
      policy: 'customer',
    });
    expect((await call(customerId, 'test_calendar_probe', {}, { agentId: freed }).expect(400)).body.error.code).toBe('INTEGRATION_NOT_CONNECTED');
    // `readOnly` inherits the customer's list and adds its own ceiling.
    expect((await call(customerId, 'test_calendar_probe', {}, { agentId: readOnly }).expect(403)).body.error.details.policy).toBe('customer');
    expect((await call(customerId, 'test_write', { tag: 'x' }, { agentId: readOnly }).expect(403)).body.error.details).toEqual({
      rule: 'max_side_effects',
      policy: 'agent',
    });
    await call(customerId, 'test_write', { tag: 'x' }, { agentId: plain }).expect(200);
    // Budgets: the customer's 2 for `plain`, the agent's own 4 for `freed` — counted per conversation, whichever
    // agent calls: after plain's 2 calls in `c`, freed has 2 left there.
    for (let i = 0; i < 2; i++) await echo(customerId, { agentId: plain, conversationId: 'c' }).expect(200);
    expect((await echo(customerId, { agentId: plain, conversationId: 'c' }).expect(403)).body.error.details).toEqual({
      rule: 'max_tool_calls_per_conversation',
      policy: 'customer',
      limit: 2,
    });
    for (let i = 0; i < 2; i++) await echo(customerId, { agentId: freed, conversationId: 'c' }).expect(200);
    expect((await echo(customerId, { agentId: freed, conversationId: 'c' }).expect(403)).body.error.details).toEqual({
      rule: 'max_tool_calls_per_conversation',
      policy: 'agent',
      limit: 4,
    });
  });

  test('when only an agent has a policy, then other agents of the customer are not limited', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    await putPolicy(agentPath(customerId, agentId), { enabled_tools: ['test_write'] }).expect(201);
    expect((await echo(customerId, { agentId }).expect(403)).body.error.details).toEqual({ rule: 'enabled_tools', policy: 'agent' });
    await echo(customerId).expect(200);
  });

  test('when a policy changes, then the very next call follows it (no cache delay on this replica)', async () => {
    const customerId = randomUUID();
    await echo(customerId).expect(200); // caches "no policy"
    const created = await putPolicy(customerPath(customerId), { enabled_tools: ['test_write'] }).expect(201);
    await echo(customerId).expect(403);
    await api().delete(customerPath(customerId)).set('Authorization', asAdmin()).set('If-Match', created.headers.etag!).expect(200);
    await echo(customerId).expect(200);
  });
});

describe('the catalog and the status endpoint for one agent', () => {
  test('when asked for an agent, then they list only the tools it may run', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    await hub.store.save(aCredential({ customerId, integration: 'google_calendar', scopes: CALENDAR_SCOPES }));
    await putPolicy(customerPath(customerId), { enabled_tools: ['hub_echo', 'calendar_get_availability', 'calendar_create_event'] }).expect(201);
    await putPolicy(agentPath(customerId, agentId), { max_side_effects: 'reads' }).expect(201);

    const all = await api().get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    expect(all.body.tools.length).toBeGreaterThan(3);
    const forAgent = await api().get(`/api/internal/tools/?customer_id=${customerId}&agent_id=${agentId}`).set('Authorization', serviceAuth()).expect(200);
    expect(forAgent.body.tools.map((t: { name: string }) => t.name)).toEqual(['calendar_get_availability', 'hub_echo']);
    const forCustomer = await api().get(`/api/internal/tools?customer_id=${customerId}`).set('Authorization', serviceAuth()).expect(200);
    expect(forCustomer.body.tools.map((t: { name: string }) => t.name)).toEqual(['calendar_create_event', 'calendar_get_availability', 'hub_echo']);

    const status = await api().get(`/api/internal/integrations/status/${customerId}/?agent_id=${agentId}`).set('Authorization', serviceAuth()).expect(200);
    expect(status.body.integrations.google_calendar.tools_available).toEqual(['calendar_get_availability']);
    const unfiltered = await api().get(`/api/internal/integrations/status/${customerId}/`).set('Authorization', serviceAuth()).expect(200);
    expect(unfiltered.body.integrations.google_calendar.tools_available.length).toBeGreaterThan(1);
  });

  test('when agent_id comes without customer_id, or is not a UUID, then VALIDATION_ERROR', async () => {
    await api().get(`/api/internal/tools/?agent_id=${randomUUID()}`).set('Authorization', serviceAuth()).expect(400);
    await api().get(`/api/internal/tools/?customer_id=nope`).set('Authorization', serviceAuth()).expect(400);
  });
});
