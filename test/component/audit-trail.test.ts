import { randomUUID } from 'node:crypto';
import { asAdmin, asCustomer } from '../helpers/admin';
import { useAuditSuite } from '../helpers/audit';
import { connectToSandbox, runTool } from '../helpers/connected';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { buildTestHub } from '../helpers/hub';

/**
 * The audit trail as an operator uses it: every authenticated execute call leaves a receipt (success, each error
 * family, a replay, a rate-limited call), readable through the admin API — filtered, newest first, paged with a
 * cursor that stays stable while calls keep coming — and as a conversation's replay bundle; `redacted` keeps no
 * message subject, body or token; old rows are purged.
 */

const { sb, hub, api, receipts } = useAuditSuite();
const execute = (body: object) => api().post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body);

describe('a receipt for every call', () => {
  test('when a call succeeds, then its receipt names caller, credential, tool, version, times, outcome and call_id; the access line its request_id', async () => {
    const body = anExecuteBody({ inputs: { message: 'hello audit' }, context: { conversation_id: 'conv-1', request_id: 'req-ok-1' } });
    const res = await execute(body).expect(200);
    const page = await receipts(body.customer_id);
    expect(page.receipts).toHaveLength(1);
    const r = page.receipts[0];
    expect(r).toMatchObject({
      tool: 'hub_echo',
      version: '1.0.0',
      customer_id: body.customer_id,
      agent_id: body.agent_id,
      conversation_id: 'conv-1',
      request_id: 'req-ok-1',
      outcome: 'ok',
      api_calls: 0,
      payload_mode: 'redacted',
      principal: expect.stringMatching(/^secret:[0-9a-f]{12}$/),
      google_operations: [],
    });
    // A field whose value is null is left out (absent means null), and replay unless true.
    for (const absent of ['user_id', 'trace_id', 'retryable', 'replay', 'error']) expect(r).not.toHaveProperty(absent);
    expect(r.call_id).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(r.t_end)).toBeGreaterThanOrEqual(Date.parse(r.t_start));
    expect(r.input).toEqual({ message: expect.stringMatching(/^string\(11\) #[0-9a-f]{16}$/) });
    expect(JSON.stringify(r)).not.toContain('hello audit');
    // The call_id is made on the receipt thread, after the answer: the access line and the receipt share the request_id.
    const access = hub()
      .logs.entries()
      .find((l) => l.request_id === 'req-ok-1' && l.msg === 'request completed');
    expect(access).toMatchObject({ request_id: r.request_id, status: 200 });
    expect(access).not.toHaveProperty('call_id');
    expect(res.body.metadata.request_id).toBe('req-ok-1');
  });

  test('when the same call is made again with the same request_id and inputs, then it gets the same call_id; other inputs get another', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    const call = (message: string) =>
      execute(anExecuteBody({ customer_id: customerId, agent_id: agentId, inputs: { message }, context: { request_id: 'same-req' } })).expect(200);
    await call('a');
    await call('a');
    await call('b');
    const ids = (await receipts(customerId)).receipts.map((r: { call_id: string }) => r.call_id);
    expect(ids[1]).toBe(ids[2]);
    expect(ids[0]).not.toBe(ids[1]);
  });

  test('when calls fail — invalid body, unknown tool, invalid inputs, not connected, upstream failure, crash — then each leaves a receipt with its code and retryable', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    const base = { customer_id: customerId, agent_id: agentId };
    await execute({ ...base, tool: 'hub_echo', inputs: [] }).expect(400);
    await execute(anExecuteBody({ ...base, tool: 'no_such_tool' })).expect(404);
    await execute(anExecuteBody({ ...base, inputs: { wrong: 1 } })).expect(400);
    await execute(anExecuteBody({ ...base, tool: 'test_calendar_probe', inputs: {} })).expect(400);
    await execute(anExecuteBody({ ...base, tool: 'test_write', inputs: { tag: randomUUID(), fail: 'retryable' } })).expect(502);
    await execute(anExecuteBody({ ...base, tool: 'test_crash', inputs: {} })).expect(500);
    const got = (await receipts(customerId)).receipts as { tool: string; outcome: string; retryable: boolean; error: { code: string } }[];
    expect(got.map((r) => [r.tool, r.outcome, r.retryable]).reverse()).toEqual([
      ['hub_echo', 'VALIDATION_ERROR', false],
      ['no_such_tool', 'TOOL_NOT_FOUND', false],
      ['hub_echo', 'VALIDATION_ERROR', false],
      ['test_calendar_probe', 'INTEGRATION_NOT_CONNECTED', false],
      ['test_write', 'EXTERNAL_API_ERROR', true],
      ['test_crash', 'INTERNAL_ERROR', false],
    ]);
    expect(got.every((r) => r.error.code === r.outcome)).toBe(true);
    const errorsOnly = (await receipts(customerId, '?outcome=EXTERNAL_API_ERROR')).receipts;
    expect(errorsOnly).toHaveLength(1);
  });

  test('when a write is replayed for its request_id, then the replay has a receipt of its own, flagged, under the same call_id', async () => {
    const body = anExecuteBody({ tool: 'test_write', inputs: { tag: randomUUID() }, context: { request_id: `w-${randomUUID()}` } });
    await execute(body).expect(200);
    const again = await execute(body).expect(200);
    expect(again.body.metadata.idempotent_replay).toBe(true);
    const list = (await receipts(body.customer_id)).receipts;
    expect(list.map((r: { replay?: true }) => r.replay ?? false)).toEqual([true, false]);
    const byCall = await api().get(`/api/admin/customers/${body.customer_id}/receipts/${list[0].call_id}`).set('Authorization', asAdmin()).expect(200);
    expect(byCall.body.receipts.map((r: { replay?: true }) => r.replay)).toEqual([undefined, true]);
  });

  test('when a call is rate limited, then it leaves a RATE_LIMITED receipt too', async () => {
    const limited = await buildTestHub({ env: { HUB_RATE_LIMIT_CUSTOMER_POINTS: '2', HUB_AUDIT_FLUSH_MS: '20' } });
    try {
      const body = anExecuteBody();
      const send = () => client(limited.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body);
      await send().expect(200);
      await send().expect(200);
      await send().expect(429);
      await limited.audit.drain();
      const rows = await limited.testDb.db.query<{ outcome: string; retryable: boolean }>(
        'SELECT outcome, retryable FROM audit_receipts WHERE customer_id = $1 ORDER BY id',
        [body.customer_id],
      );
      expect(rows).toEqual([
        { outcome: 'ok', retryable: null },
        { outcome: 'ok', retryable: null },
        { outcome: 'RATE_LIMITED', retryable: true },
      ]);
    } finally {
      await limited.close();
    }
  });
});

describe('a Hub without the audit trail, and hostile bodies', () => {
  test('when HUB_AUDIT=off, then calls are answered as usual and leave no receipt', async () => {
    const silent = await buildTestHub({ env: { HUB_AUDIT: 'off', HUB_AUDIT_FLUSH_MS: '20' } });
    try {
      const body = anExecuteBody();
      const res = await client(silent.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(body).expect(200);
      expect(res.body.success).toBe(true);
      await silent.audit.drain();
      expect(await silent.testDb.db.query('SELECT 1 FROM audit_receipts WHERE customer_id = $1', [body.customer_id])).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  test('when a body floods 30,000 unknown keys into inputs, then it is refused and its receipt holds a bounded shape of them', async () => {
    const flood = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`token_or_not_${i}`, `value ${i}`]));
    const body = anExecuteBody({ inputs: { message: 'x', ...flood } });
    const res = await execute(body).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues).toHaveLength(20);
    await hub().audit.drain();
    const [row] = await hub().testDb.db.query<{ call_id: string; input: Record<string, unknown> }>(
      'SELECT call_id, input FROM audit_receipts WHERE customer_id = $1',
      [body.customer_id],
    );
    expect(row!.call_id).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.keys(row!.input).length).toBeLessThanOrEqual(1_001);
    expect(JSON.stringify(row!.input)).not.toContain('value 1');
  });
});

describe('Google operations and redaction', () => {
  test('when an email is sent, then the receipt lists the Gmail request with its status, and the table holds neither subject, body, address nor token', async () => {
    await sb.createAccount({ email: 'ana.audit@acme.example' });
    const ana = await connectToSandbox(hub(), sb, { email: 'ana.audit@acme.example', integration: 'google_gmail' });
    const subject = `Quarterly secret plan ${randomUUID()}`;
    const bodyText = `Body text that must never be stored ${randomUUID()}`;
    const res = await runTool(hub(), ana, 'email_send', { to: ['ben.audit@acme.example'], subject, body: bodyText }).expect(200);
    expect(res.body.success).toBe(true);
    await hub().audit.drain();
    const [row] = await hub().testDb.db.query<{ google_ops: { operation: string; status: number }[]; api_calls: number }>(
      'SELECT google_ops, api_calls FROM audit_receipts WHERE customer_id = $1',
      [ana.customerId],
    );
    expect(row!.google_ops).toEqual(expect.arrayContaining([expect.objectContaining({ operation: 'gmail.users.messages.send', status: 200 })]));
    expect(row!.google_ops.length).toBeLessThanOrEqual(row!.api_calls);
    const tokens = hub().store.openTokens(ana.record);
    const dump = JSON.stringify(await hub().testDb.db.query('SELECT * FROM audit_receipts'));
    for (const needle of [subject, bodyText, 'ben.audit@acme.example', tokens.accessToken!, tokens.refreshToken!]) expect(dump).not.toContain(needle);
    const [input] = await hub().testDb.db.query<{ input: Record<string, unknown> }>('SELECT input FROM audit_receipts WHERE customer_id = $1', [
      ana.customerId,
    ]);
    expect(input!.input).toEqual({
      to: { $array: 1, $each: 'string', $hashes: [expect.stringMatching(/^[0-9a-f]{16}$/)] },
      subject: `string(${subject.length})`,
      body: `string(${bodyText.length})`,
    });
  });

  test('when a connection is missing, then the error receipt keeps its setup_url without the link token', async () => {
    const body = anExecuteBody({ tool: 'test_calendar_probe', inputs: {} });
    await execute(body).expect(400);
    await hub().audit.drain();
    const dump = JSON.stringify(await hub().testDb.db.query('SELECT error FROM audit_receipts WHERE customer_id = $1', [body.customer_id]));
    expect(dump).toContain('"code":"INTEGRATION_NOT_CONNECTED"');
    expect(dump).not.toMatch(/token=[A-Za-z0-9_-]{20}/);
  });
});

describe('reading receipts', () => {
  test('when receipts are paged while calls keep coming, then the pages neither repeat nor skip any receipt that existed at the start', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    const call = (i: number) => execute(anExecuteBody({ customer_id: customerId, agent_id: agentId, inputs: { message: `m${i}` } })).expect(200);
    for (let i = 0; i < 25; i++) await call(i);
    await hub().audit.drain();
    const before = (await hub().testDb.db.query<{ call_id: string }>('SELECT call_id FROM audit_receipts WHERE customer_id = $1', [customerId])).map(
      (r) => r.call_id,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let n = 25;
    do {
      const res = await receipts(customerId, `?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.receipts.map((r: { call_id: string }) => r.call_id));
      cursor = res.next_cursor;
      await Promise.all([call(n++), call(n++)]); // newer receipts land while we page
      await hub().audit.drain();
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
    const times = seen.length;
    expect(times).toBeGreaterThanOrEqual(25);
  });

  test('when filters are given, then only matching receipts come back; a bad cursor is a VALIDATION_ERROR', async () => {
    const customerId = randomUUID();
    const agentA = randomUUID();
    await execute(anExecuteBody({ customer_id: customerId, agent_id: agentA, user_id: 'u-1', context: { conversation_id: 'c-1' } })).expect(200);
    await execute(anExecuteBody({ customer_id: customerId, user_id: 'u-2' })).expect(200);
    expect((await receipts(customerId, `?agent_id=${agentA}`)).receipts).toHaveLength(1);
    expect((await receipts(customerId, '?user_id=u-2')).receipts).toHaveLength(1);
    expect((await receipts(customerId, '?conversation_id=c-1')).receipts).toHaveLength(1);
    expect((await receipts(customerId, '?tool=hub_echo&outcome=ok')).receipts).toHaveLength(2);
    expect((await receipts(customerId, '?outcome=error')).receipts).toHaveLength(0);
    expect((await receipts(customerId, `?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).receipts).toHaveLength(0);
    const bad = await receipts(customerId, '?cursor=not-a-cursor', { status: 400 });
    expect(bad.error.code).toBe('VALIDATION_ERROR');
  });

  test('when a customer-scoped token asks, then it sees its own receipts and is refused another customer’s', async () => {
    const body = anExecuteBody();
    await execute(body).expect(200);
    expect((await receipts(body.customer_id, '', { auth: asCustomer(body.customer_id) })).receipts).toHaveLength(1);
    const other = await receipts(body.customer_id, '', { auth: asCustomer(randomUUID()), status: 403 });
    expect(other.error.code).toBe('FORBIDDEN');
    await api()
      .get(`/api/admin/customers/${body.customer_id}/receipts/${'0'.repeat(32)}`)
      .set('Authorization', asAdmin())
      .expect(404);
  });

  test('when a conversation’s replay bundle is asked for, then its receipts come in order with the schemas of the tool versions used', async () => {
    const customerId = randomUUID();
    const conversation = `conv-${randomUUID()}`;
    await execute(anExecuteBody({ customer_id: customerId, inputs: { message: 'first' }, context: { conversation_id: conversation } })).expect(200);
    await execute(
      anExecuteBody({ customer_id: customerId, tool: 'test_write', inputs: { tag: randomUUID() }, context: { conversation_id: conversation } }),
    ).expect(200);
    await execute(anExecuteBody({ customer_id: customerId, inputs: { message: 'elsewhere' }, context: { conversation_id: 'another' } })).expect(200);
    await hub().audit.drain();
    const res = await api().get(`/api/admin/customers/${customerId}/conversations/${conversation}/replay-bundle`).set('Authorization', asAdmin()).expect(200);
    expect(res.body.receipts.map((r: { tool: string }) => r.tool)).toEqual(['hub_echo', 'test_write']);
    expect(Object.keys(res.body.tools).sort()).toEqual(['hub_echo@1.0.0', 'test_write@1.0.0']);
    expect(res.body.tools['hub_echo@1.0.0']).toMatchObject({ available: true, input_schema: { type: 'object' } });
    expect(res.body.truncated).toBe(false);
    // What a replay needs of each call: its shape, and hashes that match where values repeat (the echo's answer
    // repeats its input), never the values themselves.
    const [echo] = res.body.receipts as { input: { message: string }; output: { message: string }; principal: string }[];
    expect(echo!.input.message).toMatch(/^string\(5\) #[0-9a-f]{16}$/);
    expect(echo!.output.message).toBe(echo!.input.message);
    expect(echo!.principal).toMatch(/^secret:/);
    expect(JSON.stringify(res.body.receipts)).not.toContain('first');
    await api().get(`/api/admin/customers/${customerId}/conversations/nothing-here/replay-bundle`).set('Authorization', asAdmin()).expect(404);
  });
});

describe('connection events and retention', () => {
  test('when an admin changes working hours and disconnects, then both are audited with the admin’s sub, each committed with its change', async () => {
    await sb.createAccount({ email: 'ana.events@acme.example' });
    const ana = await connectToSandbox(hub(), sb, { email: 'ana.events@acme.example', integration: 'google_calendar' });
    const path = `/api/admin/customers/${ana.customerId}/integrations/google_calendar`;
    await api()
      .put(`${path}/working-hours`)
      .set('Authorization', asAdmin({ claims: { sub: 'alice@ops.example' } }))
      .send({ start: '08:00', end: '16:00', days: ['monday'] })
      .expect(200);
    await api()
      .delete(path)
      .set('Authorization', asCustomer(ana.customerId, { claims: { sub: 'bob@customer.example' } }))
      .expect(200);
    // No drain: each row was written in its change's transaction, so it is there when the change is answered.
    const rows = await hub().testDb.db.query(
      'SELECT event, actor, account_email, integration FROM audit_connection_events WHERE customer_id = $1 ORDER BY id',
      [ana.customerId],
    );
    expect(rows).toEqual([
      { event: 'working_hours_changed', actor: 'alice@ops.example', account_email: 'ana.events@acme.example', integration: 'google_calendar' },
      { event: 'disconnected', actor: 'bob@customer.example', account_email: 'ana.events@acme.example', integration: 'google_calendar' },
    ]);
  });

  test('when rows are older than the retention, then the purge deletes them and keeps the rest', async () => {
    const body = anExecuteBody();
    await execute(body).expect(200);
    await hub().audit.drain();
    const db = hub().testDb.db;
    await db.query(
      `INSERT INTO audit_receipts (call_id, request_id, customer_id, started_at, ended_at, duration_ms, outcome, api_calls, payload_mode)
       SELECT md5(g::text), 'old', $1, now() - interval '31 days', now() - interval '31 days', 1, 'ok', 0, 'none' FROM generate_series(1, 1200) g`,
      [body.customer_id],
    );
    await db.query(
      `INSERT INTO audit_connection_events (at, customer_id, integration, event) VALUES (now() - interval '40 days', $1, 'google_gmail', 'connected')`,
      [body.customer_id],
    );
    const deleted = await hub().audit.purge();
    expect(deleted.audit_receipts).toBeGreaterThanOrEqual(1200);
    expect(deleted.audit_connection_events).toBeGreaterThanOrEqual(1);
    const left = await db.query<{ request_id: string }>('SELECT request_id FROM audit_receipts WHERE customer_id = $1', [body.customer_id]);
    expect(left).toHaveLength(1);
    expect(left[0]!.request_id).not.toBe('old');
  });
});
