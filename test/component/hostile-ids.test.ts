import { randomUUID } from 'node:crypto';
import { connectToSandbox, runTool, sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * Ids go into Google request paths. "." and ".." used to pass validation and reach googleapis, which refuses
 * them as path segments by throwing: a 500 with a stack in the log, and an api call counted that was never
 * made. Every id field now has an alphabet, so such ids are the caller's mistake, reported as such.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

const EMAIL = 'ids@acme.example';
const SINCE = '2024-01-10T09:30:00Z';
const WHEN = { start: '2026-12-01T10:00:00Z', end: '2026-12-01T11:00:00Z' };

/** Each tool with an id input, the inputs with the id put in, and the field's path in a validation answer. */
const ID_FIELDS: [tool: string, inputs: (id: string) => Record<string, unknown>, path: string][] = [
  ['email_read', (id) => ({ message_id: id }), 'inputs.message_id'],
  ['email_check_replies', (id) => ({ thread_id: id, since: SINCE }), 'inputs.thread_id'],
  ['email_send', (id) => ({ to: ['x@example.com'], body: 'b', reply_to_message_id: id }), 'inputs.reply_to_message_id'],
  ['calendar_update_event', (id) => ({ event_id: id, updates: { title: 'x' } }), 'inputs.event_id'],
  ['calendar_delete_event', (id) => ({ event_id: id }), 'inputs.event_id'],
  ['calendar_delete_event', (id) => ({ event_id: 'abc123', calendar_id: id }), 'inputs.calendar_id'],
  ['calendar_create_event', (id) => ({ title: 't', ...WHEN, calendar_id: id }), 'inputs.calendar_id'],
  ['calendar_get_availability', (id) => ({ start_date: '2026-12-01', end_date: '2026-12-02', calendars: [id] }), 'inputs.calendars[0]'],
];

const HOSTILE_IDS = ['.', '..', '../x', 'a/b', '%2e%2e', ' ', '', 'a b', '\u0000', 'é'];

describe('id inputs', () => {
  it.each(ID_FIELDS)(
    'when %s gets an id that cannot be one ("." , "..", path syntax), then VALIDATION_ERROR, no call made or counted',
    async (tool, inputs, path) => {
      const customerId = randomUUID();
      await sb.createAccount({ email: EMAIL });
      await connectToSandbox(hub, sb, { email: EMAIL, integration: 'google_gmail', customerId });
      await connectToSandbox(hub, sb, { email: EMAIL, integration: 'google_calendar', customerId });
      const requests = await sandboxRequestsFrom(sb);
      const errorsBefore = hub.logs.entries().filter((e) => (e.level as number) >= 50).length;
      for (const id of HOSTILE_IDS) {
        const res = await runTool(hub, { customerId, userId: null }, tool, inputs(id));
        expect({ id, status: res.status }).toEqual({ id, status: 400 });
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
        expect(res.body.metadata.api_calls).toBe(0);
      }
      expect(await requests()).toEqual([]);
      expect(hub.logs.entries().filter((e) => (e.level as number) >= 50)).toHaveLength(errorsBefore);
    },
  );

  it('when ids have the shapes Google hands out, then they pass validation and reach Google', async () => {
    const customerId = randomUUID();
    await sb.createAccount({ email: EMAIL });
    await connectToSandbox(hub, sb, { email: EMAIL, integration: 'google_gmail', customerId });
    await connectToSandbox(hub, sb, { email: EMAIL, integration: 'google_calendar', customerId });
    const who = { customerId, userId: null };
    expect((await runTool(hub, who, 'email_read', { message_id: '18c2f1a9b7e4d3c0' })).status).toBe(404);
    expect((await runTool(hub, who, 'calendar_delete_event', { event_id: '7kvt2p3gqsl8j1qnv7v3fc3l6k_20240115T140000Z' })).status).toBe(404);
    const holidays = await runTool(hub, who, 'calendar_delete_event', { event_id: 'abc123', calendar_id: 'en.usa#holiday@group.v.calendar.google.com' });
    expect(holidays.body.error.code).not.toBe('VALIDATION_ERROR');
  });
});
