import { createHash, randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { anExecuteBody } from '../helpers/factories';
import { SECRET_A } from '../helpers/env';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * Refused calls cost their caller and leave little: every authenticated call is charged before anything is
 * written; a call refused before its tool ran (out of scope, rate limited, an unreadable body, an unknown tool)
 * leaves a receipt of a fixed size — no payload — naming the credential that made it; and a key refused for
 * acting outside its scope is recorded against itself, never in the trail of the customer it named.
 */

let hub: TestHub;
const api = () => client(hub.app);
beforeAll(async () => {
  hub = await buildTestHub({ env: { HUB_RATE_LIMIT_CUSTOMER_POINTS: '1000', HUB_RATE_LIMIT_AGENT_POINTS: '8', HUB_AUDIT_FLUSH_MS: '20' } });
});
afterAll(() => hub.close());

const send = (auth: string, body: unknown) =>
  api()
    .post('/api/internal/tools/execute/')
    .set('Authorization', auth)
    .send(body as object);
const makeKey = async (customerIds: string[] | 'all') =>
  (await api().post('/api/admin/service-keys').set('Authorization', asAdmin()).send({ name: 'scoped', customer_ids: customerIds }).expect(201)).body as {
    id: string;
    key: string;
  };
type Row = { customer_id: string | null; outcome: string; principal: string | null; payload_mode: string; size: number; input: unknown; error: unknown };
const rows = async (where: string, params: unknown[]) => {
  await hub.audit.drain();
  return hub.testDb.db.query<Row>(
    `SELECT customer_id::text AS customer_id, outcome, principal, payload_mode, input, error,
            octet_length(row_to_json(r)::text) AS size FROM audit_receipts r WHERE ${where} ORDER BY id`,
    params,
  );
};
/** A 64 KB inputs object of many keys: what a hostile caller sends to grow the trail. */
const hostileInputs = () => Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`key_${i}_${'k'.repeat(8)}`, 'v'.repeat(20)]));

test('when refused calls carry 64 KB inputs (unknown tool, unreadable body, invalid body, rate limited), then each receipt is at most 1 KB with no payload and names its credential', async () => {
  const customerId = randomUUID();
  const agentId = randomUUID();
  const inputs = hostileInputs();
  expect(JSON.stringify(inputs).length).toBeGreaterThan(60_000);
  await send(serviceAuth(), { tool: 'no_such_tool', customer_id: customerId, agent_id: agentId, inputs }).expect(404);
  await send(serviceAuth(), { tool: 'hub_echo', customer_id: customerId, agent_id: agentId, inputs, extra: 'not in the contract' }).expect(400);
  await send(serviceAuth(), { tool: 42, customer_id: customerId, agent_id: agentId, inputs }).expect(400);
  let status = 0;
  for (let i = 0; i < 10 && status !== 429; i++)
    status = (await send(serviceAuth(), anExecuteBody({ customer_id: customerId, agent_id: agentId, inputs }))).status;
  expect(status).toBe(429);
  const got = await rows('customer_id = $1', [customerId]);
  expect(new Set(got.map((r) => r.outcome))).toEqual(new Set(['TOOL_NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED']));
  const refused = got.filter((r) => r.payload_mode === 'none');
  // the unknown tool, the body with an unknown field, the unreadable tool, the 429
  expect(refused.map((r) => r.outcome)).toEqual(['TOOL_NOT_FOUND', 'VALIDATION_ERROR', 'VALIDATION_ERROR', 'RATE_LIMITED']);
  // The secret is named by the first 12 hex digits of its SHA-256 (what `sha256sum` prints), never by itself.
  const fingerprint = createHash('sha256').update(SECRET_A).digest('hex').slice(0, 12);
  for (const r of refused) {
    expect(r).toMatchObject({ input: null, principal: `secret:${fingerprint}` });
    expect(r.size).toBeLessThanOrEqual(1_024);
  }
  // Invalid inputs for a known tool keep their compact shape, within the fixed bound of any receipt.
  for (const r of got) expect(r.size).toBeLessThanOrEqual(6 * 1_024);
});

test('when a key scoped to customer A names customer B, then B’s trail, Overview and replay bundle never see it, and the receipt names the key', async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  const key = await makeKey([a]);
  const body = anExecuteBody({ customer_id: b, inputs: { message: 'forged' }, context: { conversation_id: 'conv-b', request_id: `forged-${randomUUID()}` } });
  const res = await send(`ServiceSecret ${key.key}`, body).expect(403);
  expect(res.body.error.details.reason).toBe('customer_out_of_scope');
  // An unreadable body naming B readably is not B's either.
  await send(`ServiceSecret ${key.key}`, { ...body, tool: 7 }).expect(400);
  await hub.audit.drain();
  const trail = await api().get(`/api/admin/customers/${b}/receipts`).set('Authorization', asAdmin()).expect(200);
  expect(trail.body.receipts).toEqual([]);
  await api().get(`/api/admin/customers/${b}/conversations/conv-b/replay-bundle`).set('Authorization', asAdmin()).expect(404);
  const overview = await api().get(`/api/admin/overview?customer_id=${b}&window=1h`).set('Authorization', asAdmin()).expect(200);
  expect(overview.body.buckets.reduce((n: number, x: { calls: number }) => n + x.calls, 0)).toBe(0);
  const byKey = await rows('principal = $1', [`key:${key.id}`]);
  expect(byKey.map((r) => [r.customer_id, r.outcome])).toEqual([
    [null, 'FORBIDDEN'],
    [null, 'VALIDATION_ERROR'],
  ]);
  expect(byKey[0]).toMatchObject({ payload_mode: 'none', input: null, error: { code: 'FORBIDDEN', details: { reason: 'customer_out_of_scope' } } });
  expect(JSON.stringify(byKey)).not.toContain(b);
  expect(JSON.stringify(byKey)).not.toContain('conv-b');
  // …and an operator finds them by the key, newest first; a customer's token may not look.
  const listed = await api().get(`/api/admin/service-keys/${key.id}/receipts?limit=1`).set('Authorization', asAdmin()).expect(200);
  expect(listed.body.receipts.map((r: { outcome: string; principal: string }) => [r.outcome, r.principal])).toEqual([['VALIDATION_ERROR', `key:${key.id}`]]);
  const next = await api().get(`/api/admin/service-keys/${key.id}/receipts?cursor=${listed.body.next_cursor}`).set('Authorization', asAdmin()).expect(200);
  expect(next.body).toMatchObject({ receipts: [{ outcome: 'FORBIDDEN' }], next_cursor: null });
  expect(next.body.receipts[0]).not.toHaveProperty('customer_id'); // absent: no customer
  expect(next.body.receipts[0]).not.toHaveProperty('input');
  await api().get(`/api/admin/service-keys/${key.id}/receipts`).set('Authorization', asCustomer(a)).expect(403);
  await api().get(`/api/admin/service-keys/${randomUUID()}/receipts`).set('Authorization', asAdmin()).expect(404);
});

test('when a key keeps calling out of scope or with unreadable bodies, then the key itself is charged: 429 once its limit is spent', async () => {
  const key = await makeKey([randomUUID()]);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await send(`ServiceSecret ${key.key}`, anExecuteBody({ customer_id: randomUUID() }))).status);
  expect(statuses.slice(0, 8).every((s) => s === 403)).toBe(true);
  expect(statuses.slice(8).every((s) => s === 429)).toBe(true);
  const other = await makeKey('all');
  const unreadable: number[] = [];
  for (let i = 0; i < 10; i++) unreadable.push((await send(`ServiceSecret ${other.key}`, { tool: 1, inputs: {} })).status);
  expect(unreadable.slice(0, 8).every((s) => s === 400)).toBe(true);
  expect(unreadable.slice(8)).toEqual([429, 429]);
  const limited = await send(`ServiceSecret ${other.key}`, { tool: 1 }).expect(429);
  expect(limited.body.error.details.scope).toBe('credential');
});

test('when unknown tools are called again and again, then they are charged like any call and answered 429 once the limit is spent', async () => {
  const body = anExecuteBody({ tool: 'no_such_tool' });
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await send(serviceAuth(), body)).status);
  expect(statuses.slice(0, 8).every((s) => s === 404)).toBe(true);
  expect(statuses.slice(8)).toEqual([429, 429]);
  const got = await rows('customer_id = $1', [body.customer_id]);
  expect(got).toHaveLength(10);
  for (const r of got) expect(r.size).toBeLessThanOrEqual(1_024);
});
