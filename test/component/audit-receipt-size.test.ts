import { randomUUID } from 'node:crypto';
import { asAdmin } from '../helpers/admin';
import { useAuditSuite } from '../helpers/audit';
import { connectToSandbox } from '../helpers/connected';
import { serviceAuth } from '../helpers/http';

/**
 * What a receipt costs the audit trail, as the admin API shows it: a real calendar_get_availability call (the Hub
 * over HTTP, Google played by the sandbox, a trace id from the agent's traceparent) leaves at most 1 KB; fields whose
 * value is null are left out, on receipts written now and on rows written before that rule alike.
 */

const { sb, hub, api, receipts } = useAuditSuite();
const NY = 'America/New_York';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A working week of meetings: two or three a day, as the bench's seeded calendar holds. */
const week = Array.from({ length: 14 }, (_, i) => {
  const day = 1 + Math.floor(i / 3);
  const hour = 9 + (i % 3) * 2;
  const at = (h: number) => `2027-03-0${day}T${String(h).padStart(2, '0')}:00:00-05:00`;
  return { summary: `Meeting ${i}`, start: at(hour), end: at(hour + 1) };
});

test('when a real availability call is traced, then its receipt as the admin API shows it is at most 1 KB and omits what is null', async () => {
  await sb.createAccount({ email: 'ana.size@acme.example', time_zone: NY, events: week });
  const ana = await connectToSandbox(hub(), sb, { email: 'ana.size@acme.example', integration: 'google_calendar' });
  const res = await api()
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .set('traceparent', `00-${TRACE_ID}-00f067aa0ba902b7-01`)
    .send({
      tool: 'calendar_get_availability',
      agent_id: randomUUID(),
      customer_id: ana.customerId,
      inputs: { start_date: '2027-03-01', end_date: '2027-03-07' }, // as the contract's example and bench:realcall ask
      context: { request_id: randomUUID() },
    })
    .expect(200);
  expect(res.body.result.busy_periods).toHaveLength(14);
  const [receipt] = (await receipts(ana.customerId, '?tool=calendar_get_availability')).receipts as Record<string, any>[];
  // The connection's first call: the calendar's zone is read too (two Google operations listed), the larger case.
  expect(receipt).toMatchObject({ trace_id: TRACE_ID, outcome: 'ok', payload_mode: 'redacted', api_calls: 2 });
  expect(Buffer.byteLength(JSON.stringify(receipt))).toBeLessThanOrEqual(1_024);
  for (const absent of ['user_id', 'conversation_id', 'retryable', 'replay', 'error']) expect(receipt).not.toHaveProperty(absent);
  // Equality kept where a replay needs it (the inputs, the calendar's hash); the answer's own strings (its working
  // hours) keep their length only.
  expect(receipt!.input).toEqual({ start_date: expect.stringMatching(/^string\(10\) #[0-9a-f]{16}$/), end_date: expect.stringMatching(/^string\(10\) #/) });
  expect(receipt!.output.busy_periods).toMatchObject({ $array: 14, $ids: { calendar: [expect.stringMatching(/^[0-9a-f]{16}$/)] } });
  expect(receipt!.output.working_hours).toMatchObject({ start: 'string(5)', end: 'string(5)', timezone: `string(${NY.length})` });
});

test('when a receipt was stored before null fields were left out, then it reads the same way: its NULL columns are absent', async () => {
  const customerId = randomUUID();
  // A row as the first audit migration wrote it: no principal, trace, user, conversation, retryable or payloads.
  await hub().testDb.db.query(
    `INSERT INTO audit_receipts (call_id, tool, version, customer_id, user_id, agent_id, conversation_id, request_id, trace_id, started_at, ended_at,
       duration_ms, outcome, retryable, api_calls, google_ops, replay, payload_mode, input, output, error)
     VALUES ($1, 'hub_echo', '1.0.0', $2, NULL, NULL, NULL, 'old-1', NULL, now(), now(), 3, 'ok', NULL, 0, '[]', false, 'none', NULL, NULL, NULL)`,
    ['0'.repeat(32), customerId],
  );
  const [receipt] = (await receipts(customerId)).receipts as Record<string, unknown>[];
  expect(receipt).toEqual({
    call_id: '0'.repeat(32),
    tool: 'hub_echo',
    version: '1.0.0',
    customer_id: customerId,
    request_id: 'old-1',
    t_start: expect.any(String),
    t_end: expect.any(String),
    duration_ms: 3,
    outcome: 'ok',
    api_calls: 0,
    google_operations: [],
    payload_mode: 'none',
  });
  const byCall = await api()
    .get(`/api/admin/customers/${customerId}/receipts/${'0'.repeat(32)}`)
    .set('Authorization', asAdmin())
    .expect(200);
  expect(byCall.body.receipts).toEqual([receipt]);
});
