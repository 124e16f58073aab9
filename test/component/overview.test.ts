import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * GET /api/admin/overview as the console (or an admin's own dashboard) uses it: calls, failures by code and
 * latency by tool in fixed buckets over the last hour or day, from the audit trail; scoped like every admin route.
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: { HUB_AUDIT_FLUSH_MS: '20', HUB_RATE_LIMIT_AGENT_POINTS: '3' } });
});
afterAll(() => hub.close());

const api = () => client(hub.app);
const overview = async (query: string, auth = asAdmin(), status = 200) => {
  await hub.audit.drain();
  return (await api().get(`/api/admin/overview${query}`).set('Authorization', auth).expect(status)).body;
};

describe('overview of a customer', () => {
  const customerId = randomUUID();
  beforeAll(async () => {
    const agentId = randomUUID();
    const send = (body: object) => api().post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body);
    for (let i = 0; i < 3; i++) await send(anExecuteBody({ customer_id: customerId, agent_id: agentId })).expect(200);
    await send(anExecuteBody({ customer_id: customerId, agent_id: agentId })).expect(429); // the agent's 4th call this minute
    await send(anExecuteBody({ customer_id: customerId, agent_id: randomUUID(), tool: 'no_such_tool' })).expect(404);
  });

  test('when an admin asks for the last hour, then 60 one-minute buckets count the calls, failures by code and latency by tool', async () => {
    const o = await overview(`?window=1h&customer_id=${customerId}`);
    expect(o).toMatchObject({ window: '1h', bucket_s: 60, customer_id: customerId });
    expect(o.buckets).toHaveLength(60);
    const sum = (k: 'calls' | 'errors') => o.buckets.reduce((a: number, b: { calls: number; errors: number }) => a + b[k], 0);
    expect({ calls: sum('calls'), errors: sum('errors') }).toEqual({ calls: 5, errors: 2 });
    expect(o.errors_by_code.map((c: { code: string; total: number }) => [c.code, c.total]).sort()).toEqual([
      ['RATE_LIMITED', 1],
      ['TOOL_NOT_FOUND', 1],
    ]);
    const echo = o.latency_by_tool.find((t: { tool: string }) => t.tool === 'hub_echo');
    expect(echo).toMatchObject({ calls: 4 });
    expect(echo.p95_ms).toBeGreaterThanOrEqual(echo.p50_ms);
    expect(echo.p95_per_bucket).toHaveLength(60);
    expect(Date.parse(o.to) - Date.parse(o.from)).toBe(3_600_000);
  });

  test('when the last day is asked for, then 96 quarter-hour buckets hold the same calls', async () => {
    const o = await overview(`?window=24h&customer_id=${customerId}`);
    expect(o.buckets).toHaveLength(96);
    expect(o.bucket_s).toBe(900);
    expect(o.buckets.reduce((a: number, b: { calls: number }) => a + b.calls, 0)).toBe(5);
  });

  test('when a customer-scoped token asks without customer_id, then it gets its own customer; another customer is refused', async () => {
    const own = await overview('', asCustomer(customerId));
    expect(own.customer_id).toBe(customerId);
    expect(own.buckets.reduce((a: number, b: { calls: number }) => a + b.calls, 0)).toBe(5);
    const refused = await overview(`?customer_id=${randomUUID()}`, asCustomer(customerId), 403);
    expect(refused.error.code).toBe('FORBIDDEN');
  });

  test('when an admin omits customer_id, then every customer counts (at least these calls)', async () => {
    const all = await overview('?window=1h');
    expect(all.customer_id).toBeNull();
    expect(all.buckets.reduce((a: number, b: { calls: number }) => a + b.calls, 0)).toBeGreaterThanOrEqual(5);
  });
});

describe('bad requests and strangers', () => {
  test('when the window or customer_id is not one the API knows, then 400 VALIDATION_ERROR names the parameter', async () => {
    const bad = await overview('?window=7d&customer_id=nope&extra=1', asAdmin(), 400);
    expect(bad.error.code).toBe('VALIDATION_ERROR');
    expect(bad.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['query.customer_id', 'query.extra', 'query.window']);
  });

  test('when no admin credential comes, then 401; a service secret is not one', async () => {
    expect((await api().get('/api/admin/overview').expect(401)).body.error.code).toBe('UNAUTHORIZED');
    await api().get('/api/admin/overview').set('Authorization', serviceAuth()).expect(401);
  });
});
