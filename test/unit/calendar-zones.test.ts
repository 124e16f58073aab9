import { IANAZone } from 'luxon';
import { ianaZone, zoneNamed } from '../../src/tools/calendar/zones';

/** The remembered zones answer exactly what luxon computes afresh, DST days and odd offsets included. */

const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Africa/Casablanca',
  'Antarctica/Troll',
  'UTC',
];

describe('remembered zones', () => {
  test('when offsets are asked every 23 minutes through 2026, then each equals luxon’s own, transitions included', () => {
    const start = Date.UTC(2026, 0, 1);
    const end = Date.UTC(2027, 0, 1);
    for (const name of ZONES) {
      const remembered = ianaZone(name)!;
      const fresh = new IANAZone(name);
      for (let ts = start; ts < end; ts += 23 * 60_000) {
        if (remembered.offset(ts) !== fresh.offset(ts))
          throw new Error(`${name} at ${new Date(ts).toISOString()}: ${remembered.offset(ts)} vs ${fresh.offset(ts)}`);
      }
    }
  });

  test('when the instants just around a DST change are asked, then each side has its own offset', () => {
    const ny = ianaZone('America/New_York')!;
    const change = Date.parse('2026-03-08T07:00:00Z'); // 02:00 EST → 03:00 EDT
    expect(ny.offset(change - 1)).toBe(-300);
    expect(ny.offset(change)).toBe(-240);
    const lordHowe = ianaZone('Australia/Lord_Howe')!;
    const back = Date.parse('2026-04-04T15:00:00Z'); // 02:00 +11:00 → 01:30 +10:30
    expect(lordHowe.offset(back - 1)).toBe(660);
    expect(lordHowe.offset(back)).toBe(630);
  });

  test('when a name is not an IANA zone, then it is refused and not remembered as one', () => {
    for (const bad of ['+01:00', 'Mars/Olympus', '', 'UTC+5', 'New York']) expect(ianaZone(bad)).toBeUndefined();
    expect(zoneNamed('Mars/Olympus').isValid).toBe(false);
    expect(ianaZone('Europe/Berlin')).toBe(ianaZone('Europe/Berlin'));
  });
});
