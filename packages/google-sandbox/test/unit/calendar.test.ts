import { mergeIntervals } from '../../src/calendar/freebusy';
import { isValidEventId, mergePatch, parseTiming } from '../../src/calendar/model';
import { type Recurrence, expandOccurrences, parseRecurrence } from '../../src/calendar/recurrence';
import { htmlLink } from '../../src/calendar/render';
import type { Timing } from '../../src/calendar/state';
import { formatInZone, parseDateTime, zonedToUtc } from '../../src/calendar/time';

const t = (iso: string) => Date.parse(iso);
const timed = (start: string, end: string): Timing => ({ allDay: false, startMs: t(start), endMs: t(end) });

function rule(lines: string[], tz = 'Europe/Berlin'): Recurrence {
  const r = parseRecurrence(lines, tz);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

const keys = (timing: Timing, lines: string[], options: { from?: number; to?: number; limit?: number } = {}, tz = 'Europe/Berlin') =>
  expandOccurrences(timing, rule(lines, tz), tz, { limit: 50, ...options }).map((o) => o.key);

describe('recurrence expansion', () => {
  const standup = timed('2026-11-23T08:00:00Z', '2026-11-23T08:15:00Z'); // Monday 09:00 in Berlin

  it('when FREQ=DAILY;COUNT=3, then the start and the next two days', () => {
    expect(keys(standup, ['RRULE:FREQ=DAILY;COUNT=3'])).toEqual(['20261123T080000Z', '20261124T080000Z', '20261125T080000Z']);
  });

  it('when FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=5, then every other week on Monday and Thursday', () => {
    expect(keys(standup, ['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=5'])).toEqual([
      '20261123T080000Z',
      '20261126T080000Z',
      '20261207T080000Z',
      '20261210T080000Z',
      '20261221T080000Z',
    ]);
  });

  it('when UNTIL is given, then it is inclusive', () => {
    expect(keys(standup, ['RRULE:FREQ=DAILY;UNTIL=20261125T080000Z'])).toHaveLength(3);
    expect(keys(standup, ['RRULE:FREQ=DAILY;UNTIL=20261125'])).toHaveLength(3);
  });

  it('when a series crosses a DST change, then it keeps its wall-clock time', () => {
    const spring = timed('2027-03-26T08:00:00Z', '2027-03-26T09:00:00Z'); // Friday 09:00 CET
    expect(keys(spring, ['RRULE:FREQ=DAILY;COUNT=4'])).toEqual(['20270326T080000Z', '20270327T080000Z', '20270328T070000Z', '20270329T070000Z']);
  });

  it('when EXDATE and RDATE are given, then they remove and add occurrences', () => {
    expect(keys(standup, ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;TZID=Europe/Berlin:20261124T090000', 'RDATE:20261201T080000Z'])).toEqual([
      '20261123T080000Z',
      '20261125T080000Z',
      '20261201T080000Z',
    ]);
  });

  it('when FREQ=MONTHLY;BYDAY=-1FR, then the last Friday of each month', () => {
    const friday = timed('2026-11-27T15:00:00Z', '2026-11-27T16:00:00Z');
    expect(keys(friday, ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3'])).toEqual(['20261127T150000Z', '20261225T150000Z', '20270129T150000Z']);
  });

  it('when monthly on the 31st, then short months are skipped (RFC 5545)', () => {
    const end = timed('2027-01-31T10:00:00Z', '2027-01-31T11:00:00Z');
    expect(keys(end, ['RRULE:FREQ=MONTHLY;COUNT=3'], {}, 'UTC')).toEqual(['20270131T100000Z', '20270331T100000Z', '20270531T100000Z']);
  });

  it('when an all-day event repeats, then keys are dates and each occurrence keeps its length', () => {
    const day: Timing = { allDay: true, startDate: { y: 2026, m: 11, d: 23 }, endDate: { y: 2026, m: 11, d: 25 } };
    const out = expandOccurrences(day, rule(['RRULE:FREQ=WEEKLY;COUNT=2']), 'UTC', { limit: 10 });
    expect(out.map((o) => o.key)).toEqual(['20261123', '20261130']);
    expect(out[1]!.timing).toEqual({ allDay: true, startDate: { y: 2026, m: 11, d: 30 }, endDate: { y: 2026, m: 12, d: 2 } });
  });

  it('when the rule is endless, then a window bounds the expansion', () => {
    const out = keys(standup, ['RRULE:FREQ=WEEKLY'], { from: t('2030-01-01T00:00:00Z'), to: t('2030-01-15T00:00:00Z') });
    expect(out).toEqual(['20300107T080000Z', '20300114T080000Z']);
    expect(keys(standup, ['RRULE:FREQ=DAILY'], { limit: 4 })).toHaveLength(4);
  });

  it.each([
    ['RRULE:FREQ=SOMETIMES', 'Invalid recurrence rule.'],
    ['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270101', 'Invalid recurrence rule.'],
    ['RRULE:FREQ=MONTHLY;BYSETPOS=1;BYDAY=MO', 'The Google sandbox does not expand recurrences using BYSETPOS.'],
    ['RRULE:FREQ=HOURLY', 'The Google sandbox does not expand recurrences using FREQ=HOURLY.'],
    ['NONSENSE', 'Invalid recurrence rule.'],
  ])('when the recurrence is %j, then it is refused: %s', (line, message) => {
    expect(parseRecurrence([line], 'UTC')).toEqual({ ok: false, message });
  });
});

describe('free/busy merging', () => {
  it('when intervals overlap, touch or fall outside the window, then they are merged and clipped', () => {
    const from = 0;
    const to = 100;
    expect(
      mergeIntervals(
        [
          { start: 50, end: 60 },
          { start: -10, end: 5 },
          { start: 55, end: 70 },
          { start: 70, end: 80 },
          { start: 90, end: 200 },
          { start: 150, end: 160 },
          { start: 30, end: 30 },
        ],
        from,
        to,
      ),
    ).toEqual([
      { start: 0, end: 5 },
      { start: 50, end: 80 },
      { start: 90, end: 100 },
    ]);
  });
});

describe('event ids and links', () => {
  it.each([
    ['abcde', true],
    ['0123456789abcdefghijklmnopqrstuv', true],
    ['abcd', false],
    ['abcdw', false],
    ['ABCDE', false],
    ['a'.repeat(1024), true],
    ['a'.repeat(1025), false],
  ])('when the id is %j, then valid is %s', (id, valid) => {
    expect(isValidEventId(id)).toBe(valid);
  });

  it('when a link is made, then eid is unpadded base64 of "<id> <calendar>", gmail and group calendars abbreviated', () => {
    const eid = (link: string) => Buffer.from(new URL(link).searchParams.get('eid')!, 'base64').toString();
    expect(eid(htmlLink('abc123', 'alice@example.com'))).toBe('abc123 alice@example.com');
    expect(eid(htmlLink('abc123', 'alice@gmail.com'))).toBe('abc123 alice@m');
    expect(eid(htmlLink('abc123', 'c_x@group.calendar.google.com'))).toBe('abc123 c_x@g');
    expect(new URL(htmlLink('abc12', 'a@b.c')).searchParams.get('eid')).toBe('YWJjMTIgYUBiLmM'); // unpadded
  });
});

describe('time handling', () => {
  it("when instants are written in a zone, then the offset is that zone's at that instant, Z at zero", () => {
    expect(formatInZone(t('2026-07-01T08:00:00Z'), 'Europe/Berlin')).toBe('2026-07-01T10:00:00+02:00');
    expect(formatInZone(t('2026-12-01T08:00:00Z'), 'Europe/Berlin')).toBe('2026-12-01T09:00:00+01:00');
    expect(formatInZone(t('2026-12-01T08:00:00Z'), 'Asia/Kolkata')).toBe('2026-12-01T13:30:00+05:30');
    expect(formatInZone(t('2026-12-01T08:00:00Z'), 'Europe/London')).toBe('2026-12-01T08:00:00Z');
  });

  it('when a wall time is converted, then DST gaps land after the jump', () => {
    expect(zonedToUtc({ y: 2027, m: 3, d: 28, h: 1, mi: 30, s: 0 }, 'Europe/Berlin')).toBe(t('2027-03-28T00:30:00Z'));
    expect(zonedToUtc({ y: 2027, m: 3, d: 28, h: 2, mi: 30, s: 0 }, 'Europe/Berlin')).toBe(t('2027-03-28T01:30:00Z'));
  });

  it('when RFC 3339 is parsed, then offsets and fractions are honoured and nonsense is refused', () => {
    expect(parseDateTime('2026-11-23T09:00:00.123+01:00')).toEqual({ kind: 'instant', ms: t('2026-11-23T08:00:00Z') });
    expect(parseDateTime('2026-11-23T09:00:00')).toMatchObject({ kind: 'floating' });
    expect(parseDateTime('2026-02-30T09:00:00Z')).toBeUndefined();
    expect(parseDateTime('tomorrow')).toBeUndefined();
  });

  it('when start and end are a zero-length instant, then it is allowed; reversed, it is empty', () => {
    expect(parseTiming({ dateTime: '2026-11-23T09:00:00Z' }, { dateTime: '2026-11-23T09:00:00Z' }).ok).toBe(true);
    expect(parseTiming({ dateTime: '2026-11-23T09:00:01Z' }, { dateTime: '2026-11-23T09:00:00Z' }).ok).toBe(false);
  });
});

describe('patch semantics', () => {
  it('when a patch is merged, then objects merge, arrays replace and null clears', () => {
    expect(mergePatch({ a: 1, o: { x: 1, y: 2 }, l: [1, 2] }, { o: { y: null, z: 3 }, l: [3], a: null })).toEqual({ o: { x: 1, z: 3 }, l: [3] });
  });
});
