import { SECRET_A, SECRET_B } from '../helpers/env';
import { aCredential, anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

describe('logs', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  it('when a tool leaks its tokens every careless way during a full request, then no token or secret reaches the log', async () => {
    const input = aCredential();
    await hub.store.save(input);
    const res = await client(hub.app)
      .post('/api/internal/tools/execute/?token=abc123query&code=4%2Foauth-code')
      .set('Authorization', serviceAuth())
      .set('Cookie', 'session=cookie-value-123')
      .send(anExecuteBody({ tool: 'test_leaky', customer_id: input.customerId, inputs: {}, context: { request_id: 'leak-1' } }))
      .expect(500);
    expect(res.body.error.message).not.toContain(input.accessToken);

    const text = hub.logs.text();
    expect(hub.logs.lines.length).toBeGreaterThanOrEqual(4); // the tool's two lines, the crash, the access log
    for (const secret of [input.accessToken, input.refreshToken!, SECRET_A, SECRET_B, 'abc123query', '4/oauth-code', 'cookie-value-123']) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/ya29\./);
    expect(text).toContain('[Redacted]');
  });

  it('when a request completes, then one access line records ids (request, customer, agent, end user), tool, status and duration — no headers, no body', async () => {
    const body = anExecuteBody({ inputs: { message: 'body text that must not be logged' }, context: { request_id: 'line-1' } });
    await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body).expect(200);
    const line = hub.logs.entries().find((e) => e.request_id === 'line-1' && e.msg === 'request completed');
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      service: 'hub',
      pid: process.pid,
      hostname: expect.any(String),
      req_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      request_id: 'line-1',
      method: 'POST',
      url: '/api/internal/tools/execute/',
      status: 200,
      duration_ms: expect.any(Number),
      tool: 'hub_echo',
      customer_id: body.customer_id,
      agent_id: body.agent_id,
      user_id: null,
      msg: 'request completed',
    });
    expect(hub.logs.text()).not.toContain('body text that must not be logged');
    expect(hub.logs.text()).not.toMatch(/"headers"/);
  });

  it("when an agent sends a W3C traceparent (tracing off), then the access line and metadata.trace_id carry its trace id, and the end user's id is logged", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .set('traceparent', `00-${traceId}-b7ad6b7169203331-01`)
      .send(anExecuteBody({ user_id: 'crm-user-42', context: { request_id: 'line-trace' } }))
      .expect(200);
    expect(res.body.metadata.trace_id).toBe(traceId);
    const line = hub.logs.entries().find((e) => e.request_id === 'line-trace' && e.msg === 'request completed');
    expect(line).toMatchObject({ trace_id: traceId, user_id: 'crm-user-42' });
    // Without a traceparent (and tracing off) there is no trace to name.
    const plain = await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200);
    expect(plain.body.metadata.trace_id).toBeUndefined();
  });

  it('when a request fails validation, then the access line carries the error code', async () => {
    await client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send(anExecuteBody({ tool: 'nope', context: { request_id: 'line-2' } }))
      .expect(404);
    expect(hub.logs.entries().find((e) => e.request_id === 'line-2')).toMatchObject({ error_code: 'TOOL_NOT_FOUND', tool: 'nope', status: 404 });
  });

  it('when a request fails with a 500, then its access line is logged at error level', async () => {
    await client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send(anExecuteBody({ tool: 'test_crash', inputs: {}, context: { request_id: 'line-3' } }))
      .expect(500);
    expect(hub.logs.entries().find((e) => e.request_id === 'line-3' && e.msg === 'request failed')).toMatchObject({
      level: 50,
      status: 500,
      error_code: 'INTERNAL_ERROR',
    });
  });

  it('when probes are polled, then they do not flood the access log', async () => {
    const before = hub.logs.lines.length;
    await client(hub.app).get('/healthz').expect(200);
    await client(hub.app).get('/readyz').expect(200);
    expect(hub.logs.lines.length).toBe(before);
  });
});
