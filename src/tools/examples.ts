/**
 * One example call per tool: the inputs openapi.yaml's execute examples show (a test holds the two equal, and
 * checks each against the tool's own input schema). The Postman collection's per-tool requests are built from
 * these; a tool without an example fails `npm run generate`.
 */
export const TOOL_EXAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  hub_echo: { message: 'hello' },
  calendar_get_availability: { start_date: '2027-01-18', end_date: '2027-01-22', timezone: 'America/New_York', calendars: ['primary'] },
  calendar_create_event: {
    title: 'Meeting with John',
    start: '2027-01-18T14:00:00-05:00',
    end: '2027-01-18T15:00:00-05:00',
    description: 'Discuss Q1 planning',
    location: 'Zoom',
    attendees: ['john@example.com'],
    send_notifications: true,
  },
  calendar_update_event: {
    event_id: 'abc123',
    updates: { title: 'Updated: Meeting with John', start: '2027-01-18T15:00:00-05:00', end: '2027-01-18T16:00:00-05:00' },
    send_notifications: true,
  },
  calendar_delete_event: { event_id: 'abc123', send_notifications: true },
  calendar_find_optimal_times: {
    duration_minutes: 60,
    attendees: ['john@example.com', 'jane@example.com'],
    date_range: { start: '2027-01-18', end: '2027-01-23' },
    preferences: { preferred_hours: { start: '10:00', end: '16:00' }, avoid_mondays: true },
  },
  email_send: {
    to: ['recipient@example.com'],
    cc: [],
    bcc: [],
    subject: 'Meeting Follow-up',
    body: 'Hi, thanks for meeting today...',
    body_type: 'text',
    reply_to_message_id: null,
  },
  email_search: { query: 'from:john@example.com subject:proposal', max_results: 10, include_body: false },
  email_read: { message_id: '18c9f0a1b2c3d4e5', mark_as_read: true },
  calendar_list_calendars: { min_access_role: 'writer' },
  hub_current_time: { timezone: 'America/New_York' },
  email_check_replies: { thread_id: '18c9f0a1b2c3d4e5', since: '2027-01-10T09:30:00Z' },
};
