import { timeIn } from '../../src/tools/hub-current-time';

/** hub_current_time's answer for a given instant: offsets, weekdays and dates across DST and date lines. */

test.each([
  // New York's spring-forward: 01:59:59 EST, then 03:00:00 EDT.
  ['2027-03-14T06:59:59Z', 'America/New_York', '2027-03-14T01:59:59-05:00', 'sunday', '-05:00'],
  ['2027-03-14T07:00:00Z', 'America/New_York', '2027-03-14T03:00:00-04:00', 'sunday', '-04:00'],
  // Still the old year in Los Angeles.
  ['2027-01-01T02:00:00Z', 'America/Los_Angeles', '2026-12-31T18:00:00-08:00', 'thursday', '-08:00'],
  // Quarter- and half-hour zones; Lord Howe's half-hour DST.
  ['2027-01-15T12:00:00Z', 'Asia/Kathmandu', '2027-01-15T17:45:00+05:45', 'friday', '+05:45'],
  ['2027-01-15T12:00:00Z', 'Australia/Lord_Howe', '2027-01-15T23:00:00+11:00', 'friday', '+11:00'],
  ['2027-07-15T12:00:00Z', 'Australia/Lord_Howe', '2027-07-15T22:30:00+10:30', 'thursday', '+10:30'],
  // Already tomorrow in Kiribati; UTC itself; milliseconds dropped.
  ['2027-01-15T12:00:00.999Z', 'Pacific/Kiritimati', '2027-01-16T02:00:00+14:00', 'saturday', '+14:00'],
  ['2027-01-15T12:00:00Z', 'UTC', '2027-01-15T12:00:00+00:00', 'friday', '+00:00'],
])('when it is %s in %s, then now is %s, a %s, offset %s', (utc, zone, now, weekday, offset) => {
  const answer = timeIn(Date.parse(utc), zone, 'input');
  expect(answer).toEqual({ now, date: now.slice(0, 10), weekday, timezone: zone, utc_offset: offset, utc: utc.replace('.999', ''), source: 'input' });
});
