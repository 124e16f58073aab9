import { randomUUID } from 'node:crypto';
import { calendarGetAvailability } from '../../src/tools/calendar/get-availability';
import { ANA, JANE, JOHN, calendarRequestsSince, calendarTool, connectPerson, requestLogPosition, sharing, useCalendarSuite } from '../helpers/calendar';

/** calendar_get_availability end to end: the Hub over HTTP, Google played by the sandbox. */

const suite = useCalendarSuite();
const { sb } = suite;
const NY = 'America/New_York';
const availability = (who: Parameters<typeof calendarTool>[1], inputs: Record<string, unknown>) =>
  calendarTool(suite, who, 'calendar_get_availability', inputs);

describe('the contract example', () => {
  test('when asked for the contract inputs, then busy periods with -05:00 offsets, the calendar, and the default working hours come back', async () => {
    const ana = await connectPerson(suite, {
      email: ANA,
      time_zone: NY,
      events: [
        { summary: 'Standup', start: '2027-01-18T09:00:00-05:00', end: '2027-01-18T10:00:00-05:00' },
        { summary: 'Lunch', start: '2027-01-20T17:00:00Z', end: '2027-01-20T18:00:00Z' },
        { summary: 'Free text', start: '2027-01-19T09:00:00-05:00', end: '2027-01-19T10:00:00-05:00', transparency: 'transparent' },
        { summary: 'Outside', start: '2027-01-24T09:00:00-05:00', end: '2027-01-24T10:00:00-05:00' },
      ],
    });
    const res = await availability(ana, { start_date: '2027-01-18', end_date: '2027-01-23', timezone: NY, calendars: ['primary'] });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      busy_periods: [
        { start: '2027-01-18T09:00:00-05:00', end: '2027-01-18T10:00:00-05:00', calendar: 'primary' },
        { start: '2027-01-20T12:00:00-05:00', end: '2027-01-20T13:00:00-05:00', calendar: 'primary' },
      ],
      working_hours: { start: '09:00', end: '17:00', days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], timezone: NY },
    });
    expect(calendarGetAvailability.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.metadata.api_calls).toBe(2); // settings (zone of the working hours) + one freeBusy
    const again = await availability(ana, { start_date: '2027-01-18', end_date: '2027-01-23', timezone: NY });
    expect(again.body.metadata.api_calls).toBe(1); // the zone is remembered per connection
  });

  test('when no timezone is given, then times are in the calendar’s own zone, and an admin-set working week is reported', async () => {
    const hours = { start: '08:30', end: '16:00', days: ['monday' as const, 'tuesday' as const, 'wednesday' as const, 'thursday' as const] };
    const ana = await connectPerson(
      suite,
      { email: ANA, time_zone: 'Europe/Berlin', events: [{ summary: 'x', start: '2027-01-18T08:00:00Z', end: '2027-01-18T09:00:00Z' }] },
      { workingHours: hours },
    );
    const res = await availability(ana, { start_date: '2027-01-18', end_date: '2027-01-18' });
    expect(res.body.result).toEqual({
      busy_periods: [{ start: '2027-01-18T09:00:00+01:00', end: '2027-01-18T10:00:00+01:00', calendar: 'primary' }],
      working_hours: { ...hours, timezone: 'Europe/Berlin' },
    });
  });
});

describe('several calendars, one request', () => {
  test('when three calendars are asked, then one freeBusy answers all, sorted by start with the calendar named; an unreadable one is listed under errors', async () => {
    await sb.createAccount(
      sharing({ email: JOHN, time_zone: NY, events: [{ summary: 'j', start: '2027-01-18T11:00:00-05:00', end: '2027-01-18T12:00:00-05:00' }] }),
    );
    await sb.createAccount({
      email: JANE,
      time_zone: NY,
      events: [{ summary: 'private', start: '2027-01-18T08:00:00-05:00', end: '2027-01-18T09:00:00-05:00' }],
    });
    const ana = await connectPerson(suite, {
      email: ANA,
      time_zone: NY,
      events: [{ summary: 'a', start: '2027-01-18T10:00:00-05:00', end: '2027-01-18T11:30:00-05:00' }],
    });
    const since = await requestLogPosition(sb);
    const res = await availability(ana, { start_date: '2027-01-18', end_date: '2027-01-18', timezone: NY, calendars: [JOHN, 'primary', JANE] });
    expect(res.body.result).toEqual({
      busy_periods: [
        { start: '2027-01-18T10:00:00-05:00', end: '2027-01-18T11:30:00-05:00', calendar: 'primary' },
        { start: '2027-01-18T11:00:00-05:00', end: '2027-01-18T12:00:00-05:00', calendar: JOHN },
      ],
      working_hours: expect.any(Object),
      errors: [{ calendar: JANE, reason: 'notFound' }],
    });
    expect((await calendarRequestsSince(sb, since)).map((r) => r.operation)).toEqual(['calendar.settings.get', 'calendar.freebusy.query']);
  });
});

describe('time zones and DST', () => {
  test('when the range spans New York’s spring-forward, then offsets switch from -05:00 to -04:00 and local days stay whole', async () => {
    const ana = await connectPerson(suite, {
      email: ANA,
      time_zone: NY,
      events: [
        { summary: 'fri', start: '2027-03-12T09:00:00-05:00', end: '2027-03-12T10:00:00-05:00' },
        { summary: 'sun night', start: '2027-03-14T23:30:00-04:00', end: '2027-03-15T00:30:00-04:00' },
        { summary: 'mon', start: '2027-03-15T09:00:00-04:00', end: '2027-03-15T10:00:00-04:00' },
      ],
    });
    const res = await availability(ana, { start_date: '2027-03-12', end_date: '2027-03-14', timezone: NY });
    expect(res.body.result.busy_periods).toEqual([
      { start: '2027-03-12T09:00:00-05:00', end: '2027-03-12T10:00:00-05:00', calendar: 'primary' },
      { start: '2027-03-14T23:30:00-04:00', end: '2027-03-15T00:00:00-04:00', calendar: 'primary' }, // clipped at the end date's local midnight
    ]);
  });

  test('when the range spans Berlin’s fall-back, then the same UTC hour reads +02:00 before and +01:00 after', async () => {
    const ana = await connectPerson(suite, {
      email: ANA,
      time_zone: 'Europe/Berlin',
      events: [
        { summary: 'fri', start: '2027-10-29T08:00:00Z', end: '2027-10-29T09:00:00Z' },
        { summary: 'mon', start: '2027-11-01T08:00:00Z', end: '2027-11-01T09:00:00Z' },
      ],
    });
    const res = await availability(ana, { start_date: '2027-10-29', end_date: '2027-11-01', timezone: 'Europe/Berlin' });
    expect(res.body.result.busy_periods.map((p: { start: string }) => p.start)).toEqual(['2027-10-29T10:00:00+02:00', '2027-11-01T09:00:00+01:00']);
  });
});

describe('invalid inputs', () => {
  test.each([
    ['an unknown zone', { start_date: '2027-01-18', end_date: '2027-01-20', timezone: 'Mars/Olympus' }, 'inputs.timezone'],
    ['end before start', { start_date: '2027-01-20', end_date: '2027-01-18', timezone: NY }, 'inputs.end_date'],
    ['more than 90 days', { start_date: '2027-01-01', end_date: '2027-04-15', timezone: NY }, 'inputs.end_date'],
    ['a date-time without offset', { start_date: '2027-01-18T09:00:00', end_date: '2027-01-20' }, 'inputs.start_date'],
    ['no calendars', { start_date: '2027-01-18', end_date: '2027-01-20', calendars: [] }, 'inputs.calendars'],
    ['a misspelt field', { start_date: '2027-01-18', end_date: '2027-01-20', calender: ['primary'] }, 'inputs.calender'],
  ])('when the inputs have %s, then VALIDATION_ERROR names the field and Google is not called', async (_label, inputs, path) => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: NY });
    const since = await requestLogPosition(sb);
    const res = await availability(ana, inputs);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await calendarRequestsSince(sb, since)).toEqual([]);
  });

  test('when dates need the calendar’s zone to check, then the range is still refused over 90 days', async () => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: NY });
    const res = await availability(ana, { start_date: '2027-01-01', end_date: '2027-06-01' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'inputs.end_date', message: 'the range may span at most 90 days' }]);
  });
});

describe('which connection answers', () => {
  test('when the end user has a connection of their own, then it is used rather than the customer-wide one', async () => {
    const customerId = randomUUID();
    const company = await connectPerson(suite, { email: ANA, time_zone: NY }, { customerId });
    const own = await connectPerson(
      suite,
      { email: JOHN, time_zone: 'Europe/Berlin', events: [{ summary: 'j', start: '2027-01-18T10:00:00+01:00', end: '2027-01-18T11:00:00+01:00' }] },
      { customerId, userId: 'user-7' },
    );
    const since = await requestLogPosition(sb);
    const mine = await availability(own, { start_date: '2027-01-18', end_date: '2027-01-18' });
    expect(mine.body.result.busy_periods).toEqual([{ start: '2027-01-18T10:00:00+01:00', end: '2027-01-18T11:00:00+01:00', calendar: 'primary' }]);
    expect(mine.body.result.working_hours.timezone).toBe('Europe/Berlin');
    expect(new Set((await calendarRequestsSince(sb, since)).map((r) => r.account))).toEqual(new Set([JOHN]));
    const theirs = await availability(company, { start_date: '2027-01-18', end_date: '2027-01-18' });
    expect(theirs.body.result).toMatchObject({ busy_periods: [], working_hours: { timezone: NY } });
    const other = await availability({ customerId, userId: 'someone-else' } as never, { start_date: '2027-01-18', end_date: '2027-01-18' });
    expect(other.body.result.working_hours.timezone).toBe(NY); // no connection of their own: the customer-wide one
  });
});

describe('what a call costs the Hub', () => {
  test('when the adapter has nothing to log, then the call makes no logger of its own', async () => {
    const ana = await connectPerson(suite, { email: ANA, time_zone: NY });
    await availability(ana, { start_date: '2027-01-18', end_date: '2027-01-18' }); // the zone is read and remembered
    // pino's children inherit `child` from their parent: a spy on the root sees every child made below it.
    const child = jest.spyOn(suite.hub().logs.logger, 'child');
    try {
      const res = await availability(ana, { start_date: '2027-01-18', end_date: '2027-01-18' });
      expect(res.status).toBe(200);
      expect(child).not.toHaveBeenCalled();
    } finally {
      child.mockRestore();
    }
  });
});
