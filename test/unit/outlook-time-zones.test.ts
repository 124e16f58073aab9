import { DateTime, IANAZone } from 'luxon';
import { WINDOWS_TO_IANA_MAP } from 'windows-iana';
import { instantOf } from '../../src/providers/microsoft/calendar-answers';
import { WINDOWS_ZONE_NAMES, ianaZoneOf, windowsZoneOf } from '../../src/providers/microsoft/time-zones';

/** Outlook's Windows zone names to IANA and back, on every entry of CLDR's windowsZones table. */

const offsetAt = (zone: string, ms: number) => IANAZone.create(zone).offset(ms);
/** Instants spread over a year, so both sides of any DST rule are seen. */
const YEAR = Array.from({ length: 24 }, (_, i) => Date.UTC(2027, 0, 1) + i * 15.2 * 86_400_000);

test('when a Windows zone comes from Outlook, then every name in the table has an IANA zone the platform knows (its territory-001 zone)', () => {
  expect(WINDOWS_ZONE_NAMES.length).toBeGreaterThan(130);
  for (const name of WINDOWS_ZONE_NAMES) {
    const iana = ianaZoneOf(name);
    const golden = WINDOWS_TO_IANA_MAP.find((e) => e.windowsName === name && e.territory === '001')!.iana[0];
    expect([name, iana]).toEqual([name, golden]);
    expect(IANAZone.isValidZone(iana!)).toBe(true);
  }
});

test('when an IANA zone of the table goes to Windows, then it has a Windows name, and each golden zone comes back to itself', () => {
  for (const entry of WINDOWS_TO_IANA_MAP) {
    for (const zone of entry.iana) expect([zone, windowsZoneOf(zone)]).toEqual([zone, expect.any(String)]);
    if (entry.territory === '001') expect([entry.windowsName, ianaZoneOf(windowsZoneOf(entry.iana[0])!)]).toEqual([entry.windowsName, entry.iana[0]]);
  }
  // Other zones of a group may have changed their rules since the table was cut (Kazakhstan's 2024 merge, Mexico
  // without DST since 2022): Windows → IANA always answers the group's golden zone, which is what Windows means.
  expect(windowsZoneOf('America/Montreal')).toBe('Eastern Standard Time');
});

test('when a zone is an IANA name, Graph’s UTC spelling, or nothing anyone knows, then it passes, maps to UTC, or has no equivalent', () => {
  expect(ianaZoneOf('Europe/Madrid')).toBe('Europe/Madrid');
  expect(ianaZoneOf('  Pacific Standard Time ')).toBe('America/Los_Angeles');
  expect(ianaZoneOf('pacific standard time')).toBe('America/Los_Angeles');
  expect(ianaZoneOf('tzone://Microsoft/Utc')).toBe(ianaZoneOf('UTC'));
  for (const unknown of ['Customized Time Zone', 'tzone://Microsoft/Custom', 'Mars/Olympus', '+02:00', 'UTC+2', '', '../../etc/passwd'])
    expect([unknown, ianaZoneOf(unknown)]).toEqual([unknown, undefined]);
});

test.each([
  // Pacific: clocks go forward 2027-03-14 02:00 → 03:00 and back 2027-11-07 02:00 → 01:00.
  ['Pacific Standard Time', '2027-03-13T09:00:00', '2027-03-13T17:00:00Z'],
  ['Pacific Standard Time', '2027-03-15T09:00:00', '2027-03-15T16:00:00Z'],
  ['Pacific Standard Time', '2027-11-06T09:00:00', '2027-11-06T16:00:00Z'],
  ['Pacific Standard Time', '2027-11-08T09:00:00', '2027-11-08T17:00:00Z'],
  // Romance: forward 2027-03-28 02:00 → 03:00, back 2027-10-31 03:00 → 02:00.
  ['Romance Standard Time', '2027-03-27T09:00:00', '2027-03-27T08:00:00Z'],
  ['Romance Standard Time', '2027-03-29T09:00:00', '2027-03-29T07:00:00Z'],
  ['Romance Standard Time', '2027-10-30T09:00:00', '2027-10-30T07:00:00Z'],
  ['Romance Standard Time', '2027-11-01T09:00:00.0000000', '2027-11-01T08:00:00Z'],
])('when Graph writes %s %s, then the instant is %s', (zone, wall, instant) => {
  expect(instantOf({ dateTime: wall, timeZone: zone })).toBe(Date.parse(instant));
});

test('when a day has a DST change, then a Windows zone and its IANA zone keep the same offsets through it', () => {
  for (const [windows, day] of [
    ['Pacific Standard Time', '2027-03-14'],
    ['Romance Standard Time', '2027-10-31'],
    ['AUS Eastern Standard Time', '2027-04-04'],
  ] as const) {
    const iana = ianaZoneOf(windows)!;
    const start = DateTime.fromISO(day, { zone: iana }).startOf('day');
    const hours = Array.from({ length: 25 }, (_, h) => offsetAt(iana, start.plus({ hours: h }).toMillis()));
    expect(new Set(hours).size).toBe(2); // the offset changes once that day
    for (const ms of YEAR)
      expect(offsetAt(iana, ms)).toBe(offsetAt(WINDOWS_TO_IANA_MAP.find((e) => e.windowsName === windows && e.territory === '001')!.iana[0], ms));
  }
});

test.each([
  ['2026-03-29T01:30:00.0000000', 'UTC', '2026-03-29T01:30:00.000Z'],
  ['2026-03-29T01:30:00.1234567', 'tzone://Microsoft/Utc', '2026-03-29T01:30:00.123Z'],
  ['2026-03-29T01:30', 'Etc/UTC', '2026-03-29T01:30:00.000Z'],
  ['2026-03-29T03:30:00', 'W. Europe Standard Time', '2026-03-29T01:30:00.000Z'],
])('when Graph answers %s in %s, then the instant is %s, as luxon reads it', (dateTime, timeZone, iso) => {
  expect(new Date(instantOf({ dateTime, timeZone })!).toISOString()).toBe(iso);
  const zone = ianaZoneOf(timeZone)!;
  expect(DateTime.fromISO(dateTime.slice(0, 23), { zone }).toMillis()).toBe(instantOf({ dateTime, timeZone }));
});

test.each(['2026-02-30T10:00:00', '2026-01-01T24:00:00', '2026-13-01T10:00:00'])(
  'when Graph answers the impossible UTC time %s, then it has no instant',
  (dateTime) => {
    expect(instantOf({ dateTime, timeZone: 'UTC' })).toBeUndefined();
  },
);

test('when one zone name is asked again, then the answer is the same (remembered, not recomputed)', () => {
  expect(ianaZoneOf('Pacific Standard Time')).toBe('America/Los_Angeles');
  expect(ianaZoneOf('Pacific Standard Time')).toBe('America/Los_Angeles');
  expect(ianaZoneOf('Nowhere/Not_A_Zone')).toBeUndefined();
  expect(ianaZoneOf('Nowhere/Not_A_Zone')).toBeUndefined();
});
