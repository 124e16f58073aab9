import { calendarFindOptimalTimes } from '../../src/tools/calendar/find-optimal-times';
import { ANA, JANE, JOHN, calendarRequestsSince, calendarTool, connectPerson, requestLogPosition, sharing, useCalendarSuite } from '../helpers/calendar';

/** calendar_find_optimal_times end to end: organizer Ana (New York) and guests at the sandbox. */

const suite = useCalendarSuite();
const { sb } = suite;
const NY = 'America/New_York';
const BOSS = 'boss@acme.example';

const CONTRACT_FIND = {
  duration_minutes: 60,
  attendees: [JOHN, JANE],
  date_range: { start: '2027-01-18', end: '2027-01-23' },
  preferences: { preferred_hours: { start: '10:00', end: '16:00' }, avoid_mondays: true },
};

/** Ana's week: an unanswered invitation Wed 10-11, her own meeting Fri 9-11:30; John busy Thu 10-12; Jane free. */
async function week() {
  await sb.createAccount(
    sharing({ email: JOHN, time_zone: NY, events: [{ summary: 'j', start: '2027-01-21T10:00:00-05:00', end: '2027-01-21T12:00:00-05:00' }] }),
  );
  await sb.createAccount(sharing({ email: JANE, time_zone: NY }));
  const ana = await connectPerson(suite, {
    email: ANA,
    time_zone: NY,
    events: [{ summary: 'own', start: '2027-01-22T09:00:00-05:00', end: '2027-01-22T11:30:00-05:00' }],
  });
  await sb.createAccount({
    email: BOSS,
    time_zone: NY,
    events: [{ summary: 'invite', start: '2027-01-20T10:00:00-05:00', end: '2027-01-20T11:00:00-05:00', attendees: [{ email: ANA }] }],
  });
  return ana;
}
const find = (who: Parameters<typeof calendarTool>[1], inputs: Record<string, unknown>) => calendarTool(suite, who, 'calendar_find_optimal_times', inputs);

describe('the contract example', () => {
  test('when asked with the contract inputs, then five conflict-free slots spread over the week, Monday last, in preferred hours, -05:00', async () => {
    const ana = await week();
    const since = await requestLogPosition(sb);
    const res = await find(ana, CONTRACT_FIND);
    expect(res.status).toBe(200);
    expect(calendarFindOptimalTimes.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.result.suggestions).toEqual([
      { start: '2027-01-19T10:00:00-05:00', end: '2027-01-19T11:00:00-05:00', score: 0.99, conflicts: [] },
      { start: '2027-01-20T11:00:00-05:00', end: '2027-01-20T12:00:00-05:00', score: 0.98, conflicts: [] }, // 10:00 is tentative for Ana
      { start: '2027-01-21T12:00:00-05:00', end: '2027-01-21T13:00:00-05:00', score: 0.96, conflicts: [] }, // John busy 10-12
      { start: '2027-01-22T11:30:00-05:00', end: '2027-01-22T12:30:00-05:00', score: 0.95, conflicts: [] }, // Ana busy until 11:30
      { start: '2027-01-18T10:00:00-05:00', end: '2027-01-18T11:00:00-05:00', score: 0.8, conflicts: [] }, // avoid_mondays
    ]);
    const calls = await calendarRequestsSince(sb, since);
    expect(calls.map((r) => r.operation).sort()).toEqual(['calendar.events.list', 'calendar.freebusy.query', 'calendar.settings.get']);
    expect(res.body.metadata.api_calls).toBe(3);
  });

  test('when the only possible slot overlaps the organizer’s unanswered invitation, then it is offered with a tentative conflict', async () => {
    const ana = await week();
    const res = await find(ana, { ...CONTRACT_FIND, date_range: { start: '2027-01-20T10:00:00-05:00', end: '2027-01-20T11:00:00-05:00' }, timezone: NY });
    expect(res.body.result.suggestions).toEqual([
      { start: '2027-01-20T10:00:00-05:00', end: '2027-01-20T11:00:00-05:00', score: expect.any(Number), conflicts: [{ attendee: ANA, type: 'tentative' }] },
    ]);
    expect(res.body.result.suggestions[0].score).toBeLessThan(0.5);
    expect(res.body.metadata.api_calls).toBe(2); // timezone given: no settings read
  });

  test('when the organizer is busy for the whole range, then nothing is suggested', async () => {
    const ana = await week();
    const res = await find(ana, { ...CONTRACT_FIND, date_range: { start: '2027-01-22T09:00:00-05:00', end: '2027-01-22T11:30:00-05:00' } });
    expect(res.body.result).toEqual({ suggestions: [] });
  });
});

describe('fail closed', () => {
  test('when an attendee’s calendar cannot be read, then every suggestion carries an unknown conflict for them and none is presented as free', async () => {
    const ana = await week();
    await sb.createAccount({ email: 'private@example.com', time_zone: NY }); // exists, shares nothing
    const res = await find(ana, { ...CONTRACT_FIND, attendees: [JOHN, 'private@example.com', 'outsider@elsewhere.example'] });
    const { suggestions } = res.body.result;
    expect(suggestions).toHaveLength(5);
    for (const s of suggestions) {
      expect(s.conflicts).toEqual(
        expect.arrayContaining([
          { attendee: 'private@example.com', type: 'unknown' },
          { attendee: 'outsider@elsewhere.example', type: 'unknown' },
        ]),
      );
      expect(s.score).toBeLessThan(0.5);
    }
  });

  test('when an attendee is busy everywhere but one slot, then that slot ranks first and the rest show them busy', async () => {
    await sb.createAccount(
      sharing({ email: JOHN, time_zone: NY, events: [{ summary: 'all week', start: '2027-01-18T00:00:00-05:00', end: '2027-01-22T16:00:00-05:00' }] }),
    );
    const ana = await connectPerson(suite, { email: ANA, time_zone: NY });
    const res = await find(ana, { duration_minutes: 60, attendees: [JOHN], date_range: { start: '2027-01-18', end: '2027-01-22' }, max_results: 3 });
    expect(res.body.result.suggestions[0]).toEqual({
      start: '2027-01-22T16:00:00-05:00',
      end: '2027-01-22T17:00:00-05:00',
      score: expect.any(Number),
      conflicts: [],
    });
    expect(res.body.result.suggestions.slice(1).map((s: { conflicts: unknown }) => s.conflicts)).toEqual([
      [{ attendee: JOHN, type: 'busy' }],
      [{ attendee: JOHN, type: 'busy' }],
    ]);
  });
});

describe('DST', () => {
  test('when the range spans New York’s spring-forward, then Friday is -05:00 and Monday -04:00, both 09:00 local', async () => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: NY });
    const res = await find(ana, { duration_minutes: 30, attendees: [], date_range: { start: '2027-03-12', end: '2027-03-15' }, max_results: 2 });
    expect(res.body.result.suggestions.map((s: { start: string }) => s.start)).toEqual(['2027-03-12T09:00:00-05:00', '2027-03-15T09:00:00-04:00']);
  });

  test('when the range spans Berlin’s fall-back, then Friday is +02:00 and Monday +01:00, both 09:00 local', async () => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: 'Europe/Berlin' });
    const res = await find(ana, { duration_minutes: 30, attendees: [], date_range: { start: '2027-10-29', end: '2027-11-01' }, max_results: 2 });
    expect(res.body.result.suggestions.map((s: { start: string }) => s.start)).toEqual(['2027-10-29T09:00:00+02:00', '2027-11-01T09:00:00+01:00']);
  });
});

describe('invalid inputs', () => {
  test.each([
    ['a range ending before it starts', { ...CONTRACT_FIND, date_range: { start: '2027-01-23', end: '2027-01-18' }, timezone: NY }, 'inputs.date_range.end'],
    ['a range over 90 days', { ...CONTRACT_FIND, date_range: { start: '2027-01-01', end: '2027-05-01' } }, 'inputs.date_range.end'],
    ['an unknown zone', { ...CONTRACT_FIND, timezone: 'Europe/Nowhere' }, 'inputs.timezone'],
    [
      'preferred hours ending before they start',
      { ...CONTRACT_FIND, preferences: { preferred_hours: { start: '16:00', end: '10:00' } } },
      'inputs.preferences.preferred_hours.end',
    ],
    ['max_results over 20', { ...CONTRACT_FIND, max_results: 21 }, 'inputs.max_results'],
    ['a zero duration', { ...CONTRACT_FIND, duration_minutes: 0 }, 'inputs.duration_minutes'],
    [
      'a range that has passed (the contract’s own 2024 dates)',
      { ...CONTRACT_FIND, date_range: { start: '2024-01-15', end: '2024-01-20' } },
      'inputs.date_range.end',
    ],
  ])('when the inputs have %s, then VALIDATION_ERROR names the field', async (_label, inputs, path) => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: NY });
    const res = await find(ana, inputs);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  });
});
