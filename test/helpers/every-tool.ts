import { BUILT_IN_TOOLS } from '../../src/tools';
import { connectToSandbox } from './connected';
import type { TestHub } from './hub';
import type { MicrosoftWorld } from './microsoft';
import { MS_DOMAIN, connectToMicrosoft } from './microsoft-connected';
import type { TestSandbox } from './sandbox';

/**
 * One agent's day with every built-in tool, through whichever door a suite tests (MCP, the TypeScript client):
 * `call` runs a tool and answers its result or its Hub error code. The scenario checks each answer as a user
 * would, and `expectEveryToolCalled` that no tool of the registry was skipped — a new tool needs a step here.
 */
export type CallTool = (
  tool: string,
  inputs: Record<string, unknown>,
  requestId?: string,
) => Promise<{ ok: true; result: any } | { ok: false; code: string; error: unknown }>;

export const PERSON = 'mara.lind@acme.example';

/** A sandbox person with a calendar and a mailbox, both connected for one new customer. */
export async function connectBoth(hub: TestHub, sb: TestSandbox, customerId: string) {
  await sb.createAccount({
    email: PERSON,
    messages: [{ from: 'john@example.com', to: [PERSON], subject: 'Proposal', text: 'Here is the proposal.', date: '2026-11-28T09:00:00Z' }],
  });
  await connectToSandbox(hub, sb, { email: PERSON, integration: 'google_calendar', customerId });
  await connectToSandbox(hub, sb, { email: PERSON, integration: 'google_gmail', customerId });
}

/** What differs between the worlds the scenario runs in; the default is the Google sandbox's person of connectBoth. */
export interface EveryToolWorld {
  /** The connected account. */
  person: string;
  /** The primary calendar's id as the provider names it: Google's is the address; Graph's is its own id (any string). */
  primaryCalendarId: string | undefined;
  /**
   * Lets the vendor's eventual consistency pass after a write before a read that must see it (Outlook's free/busy
   * shows a new event only after a moment: the Microsoft sandbox models that delay; its clock moves past it).
   */
  settle?: () => Promise<void>;
}

export const GOOGLE_WORLD: EveryToolWorld = { person: PERSON, primaryCalendarId: PERSON };

/** The same person in the Microsoft sandbox: an Outlook calendar and mailbox, both connected for one new customer. */
export const MS_PERSON = `mara.lind@${MS_DOMAIN}`;

export async function connectBothMicrosoft(hub: TestHub, world: MicrosoftWorld, customerId: string): Promise<EveryToolWorld> {
  const must = async (path: string, body: unknown) => {
    const res = await world.control('POST', path, body);
    if (res.status >= 300) throw new Error(`sandbox POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  await must('/accounts', { upn: MS_PERSON, display_name: 'Mara Lind', time_zone: 'UTC' });
  await must(`/accounts/${MS_PERSON}/messages`, {
    from: { address: 'john@example.com' },
    to: [{ address: MS_PERSON }],
    subject: 'Proposal',
    text: 'Here is the proposal.',
    received: '2026-11-28T09:00:00Z',
  });
  await connectToMicrosoft(hub, world, { upn: MS_PERSON, integration: 'outlook_calendar', customerId });
  await connectToMicrosoft(hub, world, { upn: MS_PERSON, integration: 'outlook_mail', customerId });
  return {
    person: MS_PERSON,
    primaryCalendarId: undefined,
    // Past the sandbox's new-event delay (propagation to calendarView and getSchedule), as a real agent's next turn would be.
    settle: async () => {
      await world.control('POST', '/clock/advance', { seconds: 120 });
    },
  };
}

export async function runEveryTool(call: CallTool, world: EveryToolWorld = GOOGLE_WORLD): Promise<Set<string>> {
  const called = new Set<string>();
  const ok = async (tool: string, inputs: Record<string, unknown>, requestId?: string) => {
    called.add(tool);
    const answer = await call(tool, inputs, requestId);
    if (!answer.ok) throw new Error(`${tool} failed: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  expect(await ok('hub_echo', { message: 'hello' })).toEqual({ message: 'hello' });
  const created = await ok(
    'calendar_create_event',
    { title: 'Planning', start: '2027-01-18T14:00:00Z', end: '2027-01-18T15:00:00Z', attendees: ['john@example.com'] },
    `create-${Date.now()}`,
  );
  expect(created).toMatchObject({
    status: 'confirmed',
    event_id: expect.any(String),
    attendees: [{ email: 'john@example.com', response_status: 'needsAction' }],
  });
  const moved = await ok('calendar_update_event', { event_id: created.event_id, updates: { start: '2027-01-18T15:00:00Z', end: '2027-01-18T16:00:00Z' } });
  expect(moved.event_id).toBe(created.event_id);
  await world.settle?.();
  const busy = await ok('calendar_get_availability', { start_date: '2027-01-18', end_date: '2027-01-19', timezone: 'UTC' });
  expect(busy.busy_periods).toHaveLength(1);
  const times = await ok('calendar_find_optimal_times', {
    duration_minutes: 30,
    attendees: [],
    date_range: { start: '2027-01-18', end: '2027-01-19' },
    timezone: 'UTC',
  });
  expect(times.suggestions.length).toBeGreaterThan(0);
  await ok('calendar_delete_event', { event_id: created.event_id });
  const calendars = await ok('calendar_list_calendars', {});
  expect(calendars.calendars).toContainEqual(expect.objectContaining({ id: world.primaryCalendarId ?? expect.any(String), primary: true }));
  const now = await ok('hub_current_time', { timezone: 'Asia/Kathmandu' });
  expect(now).toMatchObject({ timezone: 'Asia/Kathmandu', utc_offset: '+05:45' });
  const sent = await ok('email_send', { to: ['recipient@example.com'], subject: 'Follow-up', body: 'Thanks!' }, `send-${Date.now()}`);
  expect(sent.message_id).toEqual(expect.any(String));
  const found = await ok('email_search', { query: 'from:john@example.com', max_results: 5 });
  expect(found.messages).toHaveLength(1);
  const read = await ok('email_read', { message_id: found.messages[0].message_id });
  expect(read.body).toContain('Here is the proposal.');
  const replies = await ok('email_check_replies', { thread_id: read.thread_id, since: '2026-11-01T00:00:00Z' });
  expect(typeof replies.has_new_replies).toBe('boolean');
  return called;
}

export function expectEveryToolCalled(called: Set<string>) {
  expect([...called].sort()).toEqual([...new Set(BUILT_IN_TOOLS.map((t) => t.name))].sort()); // a name, whatever its versions
}
