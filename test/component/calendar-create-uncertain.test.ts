import { ANA, JOHN, calendarRequestsSince, calendarTool, connectPerson, requestLogPosition, storedEvents, useCalendarSuite } from '../helpers/calendar';

/**
 * calendar_create_event when Google fails after creating the event (the sandbox's apply_first faults): with a
 * request_id the event id is derived from it, so the Hub's own retry meets Google's 409 and reads the event —
 * one event, and the agent gets it. Complements the crash test in calendar-events.test.ts.
 */

const suite = useCalendarSuite();
const { sb } = suite;
const INPUTS = { title: 'Budget review', start: '2027-02-01T10:00:00Z', end: '2027-02-01T11:00:00Z', attendees: [JOHN] };
const live = () => storedEvents(sb, ANA).filter((r) => r.fields.status !== 'cancelled');

test.each([
  ['answers 500', { preset: 'backendError' }, 500],
  ['drops the connection', { drop: true }, 0],
])('when Google creates the event and then %s, then the Hub retries with the same id, reads it, and one event exists', async (_what, failure, status) => {
  const who = await connectPerson(suite, { email: ANA });
  await sb.control('POST', '/faults', { operation: 'calendar.events.insert', apply_first: true, times: 1, ...failure });
  const since = await requestLogPosition(sb);
  const res = await calendarTool(suite, who, 'calendar_create_event', INPUTS, `req-${status}-${Date.now()}`);
  expect(res.status).toBe(200);
  expect((await calendarRequestsSince(sb, since)).map((r) => [r.operation, r.status])).toEqual([
    ['calendar.events.insert', status],
    ['calendar.events.insert', 409],
    ['calendar.events.get', 200],
  ]);
  expect(live().map((e) => e.id)).toEqual([res.body.result.event_id]);
});

test('when no request_id is given and Google creates the event and then answers 500, then the Hub retries under its own random id, reads it, and one event exists', async () => {
  const who = await connectPerson(suite, { email: ANA });
  const before = live().length;
  await sb.control('POST', '/faults', { operation: 'calendar.events.insert', apply_first: true, times: 1, preset: 'backendError' });
  const since = await requestLogPosition(sb);
  const res = await calendarTool(suite, who, 'calendar_create_event', INPUTS);
  expect(res.status).toBe(200);
  expect((await calendarRequestsSince(sb, since)).map((r) => [r.operation, r.status])).toEqual([
    ['calendar.events.insert', 500],
    ['calendar.events.insert', 409],
    ['calendar.events.get', 200],
  ]);
  expect(res.body.result.event_id).toMatch(/^[a-v0-9]{32}$/);
  expect(live()).toHaveLength(before + 1);
});
