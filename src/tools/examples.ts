/**
 * One example call per tool: the inputs openapi.yaml's execute examples show and the Postman collection's per-tool
 * requests send (a test checks each against the tool's own input schema). A tool without an example fails
 * `npm run generate`. People and mail are the demo world's (packages/google-sandbox/src/demo-data.ts: Ana is the
 * connected account, Ben a colleague, Carla a partner), so the collection run against `npm run demo` finds what it
 * searches and mails someone who is there; the ids Postman sends come from earlier answers (codegen/postman-flow.ts).
 */
export const TOOL_EXAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  hub_echo: { message: 'hello' },
  calendar_get_availability: { start_date: '2027-01-18', end_date: '2027-01-22', timezone: 'America/New_York', calendars: ['primary'] },
  calendar_create_event: {
    title: 'Launch review',
    start: '2027-01-18T14:00:00-05:00',
    end: '2027-01-18T15:00:00-05:00',
    description: 'Discuss Q1 planning',
    location: 'Zoom',
    attendees: ['ben.okafor@acme.example'],
    send_notifications: true,
  },
  calendar_update_event: {
    event_id: 'abc123',
    updates: { title: 'Updated: Launch review', start: '2027-01-18T15:00:00-05:00', end: '2027-01-18T16:00:00-05:00' },
    send_notifications: true,
  },
  calendar_delete_event: { event_id: 'abc123', send_notifications: true },
  calendar_find_optimal_times: {
    duration_minutes: 60,
    attendees: ['ben.okafor@acme.example', 'carla.rossi@partner.example'],
    date_range: { start: '2027-01-18', end: '2027-01-23' },
    preferences: { preferred_hours: { start: '10:00', end: '16:00' }, avoid_mondays: true },
  },
  email_send: {
    to: ['ben.okafor@acme.example'],
    cc: [],
    bcc: [],
    subject: 'Meeting Follow-up',
    body: 'Hi, thanks for meeting today...',
    body_type: 'text',
    reply_to_message_id: null,
  },
  email_search: { query: 'from:carla.rossi@partner.example subject:timeline', max_results: 10, include_body: false },
  email_read: { message_id: '18c9f0a1b2c3d4e5', mark_as_read: true },
  calendar_list_calendars: { min_access_role: 'writer' },
  hub_current_time: { timezone: 'America/New_York' },
  email_check_replies: { thread_id: '18c9f0a1b2c3d4e5', since: '2027-01-10T09:30:00Z' },
};

const AGENT = '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b';
const CUSTOMER = '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00';

/** One example of openapi.yaml's execute request: a call of `tool` (a name, or `name@version`). */
export interface ExecuteExample {
  name: string;
  summary: string;
  tool: string;
  inputs: Record<string, unknown>;
  /** Shown as `user_id: null` when null; left out when absent. */
  userId?: null;
  context?: { conversation_id?: string; request_id?: string };
}

/** A call of `tool` with its own example inputs above, unless `extra.inputs` shows others. */
const call = (name: string, summary: string, tool: string, extra: Partial<ExecuteExample> = {}): ExecuteExample => ({
  name,
  summary,
  tool,
  inputs: extra.inputs ?? TOOL_EXAMPLES[tool]!,
  ...extra,
});

/**
 * openapi.yaml's execute request examples, in the order shown: every tool's own example (the inputs above) and a
 * few more ways of calling (a guest added, a later version). The generator writes them into the spec
 * (codegen/openapi.ts), so the spec, the Postman collection and this file can never disagree.
 */
export const EXECUTE_EXAMPLES: readonly ExecuteExample[] = [
  call('echo', 'Connectivity check', 'hub_echo', { userId: null, context: { conversation_id: 'conv-1', request_id: 'req-1' } }),
  call('calendar_get_availability', 'Busy times of a week (calendar_get_availability)', 'calendar_get_availability'),
  call('calendar_create_event', 'Create an event, retry-safe (calendar_create_event)', 'calendar_create_event', { context: { request_id: 'create-7f3a' } }),
  call('calendar_update_event', 'Move an event (calendar_update_event)', 'calendar_update_event'),
  call('calendar_update_event_guests', 'Invite one more guest; the others keep their replies (calendar_update_event)', 'calendar_update_event', {
    inputs: { event_id: 'abc123', updates: { attendees: ['ben.okafor@acme.example', 'carla.rossi@partner.example'] }, send_notifications: true },
  }),
  call('calendar_delete_event', 'Delete an event (calendar_delete_event)', 'calendar_delete_event'),
  call('calendar_find_optimal_times', 'Best hour with two people (calendar_find_optimal_times)', 'calendar_find_optimal_times'),
  call('email_send', 'Send a mail, at most once (email_send)', 'email_send', { context: { request_id: 'send-91c2' } }),
  call('email_search', 'Search the mailbox (email_search)', 'email_search'),
  call('email_search_v2', 'The next page of a search (email_search@2)', 'email_search@2', {
    inputs: { query: 'from:ben.okafor@acme.example', max_results: 25, include_body: false, page_token: '09876543210987654321' },
  }),
  call('calendar_list_calendars', 'The calendars the account can add events to (calendar_list_calendars)', 'calendar_list_calendars'),
  call('hub_current_time', 'Now, where the person is (hub_current_time)', 'hub_current_time'),
  call('email_read', 'Read one message (email_read)', 'email_read'),
  call('email_check_replies', 'New replies in a thread (email_check_replies)', 'email_check_replies'),
];

/** The examples as OpenAPI's `examples` map of the execute request body. */
export function executeExamplesObject(): Record<string, { summary: string; value: Record<string, unknown> }> {
  return Object.fromEntries(
    EXECUTE_EXAMPLES.map((e) => [
      e.name,
      {
        summary: e.summary,
        value: {
          tool: e.tool,
          agent_id: AGENT,
          customer_id: CUSTOMER,
          ...(e.userId === null ? { user_id: null } : {}),
          inputs: e.inputs,
          ...(e.context ? { context: e.context } : {}),
        },
      },
    ]),
  );
}
