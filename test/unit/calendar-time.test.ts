import { DEFAULT_WORKING_HOURS } from '../../src/core/working-hours';
import { DateTime } from 'luxon';
import { formatInZone, isCivilDate, isIanaZone, offsetDateTimeMs, resolveRange, startOfLocalDay } from '../../src/tools/calendar/time';
import { workingWindows } from '../../src/tools/calendar/windows';

const paths = { start: 'inputs.start_date', end: 'inputs.end_date' };
const H = 3_600_000;
const range = (start: string, end: string, zone: string, maxDays = 90) => resolveRange(start, end, zone, paths, maxDays);
const ok = (r: ReturnType<typeof range>) => {
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.range;
};
const iso = (ms: number, zone: string) => formatInZone(ms, zone);

describe('zones and formats', () => {
  test('when a zone is an IANA name, then it is accepted; offsets, abbreviations and junk are not', () => {
    expect(['America/New_York', 'Europe/Berlin', 'UTC', 'Asia/Kathmandu'].every(isIanaZone)).toBe(true);
    expect(['+01:00', 'EST5EDT_', 'Mars/Olympus', '', 'New York'].some(isIanaZone)).toBe(false);
  });

  test('when a date-time has no offset, then it is refused; with Z or an offset it is read exactly', () => {
    expect(offsetDateTimeMs('2024-01-15T14:00:00')).toBeUndefined();
    expect(offsetDateTimeMs('2024-01-15')).toBeUndefined();
    expect(offsetDateTimeMs('2024-02-30T14:00:00Z')).toBeUndefined();
    expect(offsetDateTimeMs('2024-01-15T14:00:00-05:00')).toBe(Date.parse('2024-01-15T19:00:00Z'));
    expect(offsetDateTimeMs('2024-01-15T14:00:00.250Z')).toBe(Date.parse('2024-01-15T14:00:00.250Z'));
    expect(offsetDateTimeMs('2024-01-15T14:00-05:00')).toBe(Date.parse('2024-01-15T19:00:00Z'));
    expect(offsetDateTimeMs('2024-01-15t14:00:00.123456789z')).toBe(Date.parse('2024-01-15T14:00:00.123Z'));
    expect(offsetDateTimeMs('2024-12-31T23:30:00+14:00')).toBe(Date.parse('2024-12-31T09:30:00Z'));
    for (const bad of [
      '2024-01-15T24:00:00Z',
      '2024-01-15T10:60:00Z',
      '2024-13-01T10:00:00Z',
      '2024-01-15T10:00:00+24:00',
      '2024-01-15 10:00:00Z',
      '0099-01-01T00:00:00Z',
    ]) {
      expect(offsetDateTimeMs(bad)).toBeUndefined();
    }
    expect(isCivilDate('2024-02-29')).toBe(true);
    expect(isCivilDate('2023-02-29')).toBe(false);
  });

  test('when an instant is formatted, then it carries the zone offset of that instant (DST included)', () => {
    expect(iso(Date.parse('2024-01-15T14:00:00Z'), 'America/New_York')).toBe('2024-01-15T09:00:00-05:00');
    expect(iso(Date.parse('2024-07-15T14:00:00Z'), 'America/New_York')).toBe('2024-07-15T10:00:00-04:00');
    expect(iso(Date.parse('2024-07-15T14:00:00Z'), 'Europe/Berlin')).toBe('2024-07-15T16:00:00+02:00');
    expect(iso(Date.parse('2024-07-15T14:00:00Z'), 'UTC')).toBe('2024-07-15T14:00:00+00:00');
    expect(iso(Date.parse('2024-07-15T14:00:00.999Z'), 'Asia/Kathmandu')).toBe('2024-07-15T19:45:00+05:45');
    // Both sides of New York's fall-back hour: 01:30 happens twice, first at -04:00, then at -05:00.
    expect(iso(Date.parse('2026-11-01T05:30:00Z'), 'America/New_York')).toBe('2026-11-01T01:30:00-04:00');
    expect(iso(Date.parse('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026-11-01T01:30:00-05:00');
  });
});

describe('ranges', () => {
  test('when dates are given, then they are whole local days with the end date included', () => {
    const r = ok(range('2024-01-15', '2024-01-20', 'America/New_York'));
    expect(iso(r.startMs, 'America/New_York')).toBe('2024-01-15T00:00:00-05:00');
    expect(iso(r.endMs, 'America/New_York')).toBe('2024-01-21T00:00:00-05:00');
    const one = ok(range('2024-01-15', '2024-01-15', 'Europe/Berlin'));
    expect(one.endMs - one.startMs).toBe(24 * H);
  });

  test('when the range spans the spring-forward day in New York, then that day is 23 hours long', () => {
    const r = ok(range('2026-03-08', '2026-03-08', 'America/New_York'));
    expect(r.endMs - r.startMs).toBe(23 * H);
    expect(iso(r.endMs, 'America/New_York')).toBe('2026-03-09T00:00:00-04:00');
  });

  test('when the range spans the fall-back day in Berlin, then that day is 25 hours long', () => {
    const r = ok(range('2026-10-25', '2026-10-25', 'Europe/Berlin'));
    expect(r.endMs - r.startMs).toBe(25 * H);
    expect(iso(r.startMs, 'Europe/Berlin')).toBe('2026-10-25T00:00:00+02:00');
    expect(iso(r.endMs, 'Europe/Berlin')).toBe('2026-10-26T00:00:00+01:00');
  });

  test('when end is not after start, then the end input is named', () => {
    expect(range('2024-01-20', '2024-01-15', 'UTC')).toEqual({ ok: false, issues: [{ path: 'inputs.end_date', message: 'must be after the start' }] });
    expect(range('2024-01-15T10:00:00Z', '2024-01-15T10:00:00Z', 'UTC').ok).toBe(false);
  });

  test('when the range is longer than 90 days, then it is refused; exactly 90 days (DST inside) is fine', () => {
    expect(range('2026-01-01', '2026-03-31', 'America/New_York').ok).toBe(true); // 90 days, spring-forward inside
    expect(range('2026-08-01', '2026-10-29', 'Europe/Berlin').ok).toBe(true); // 90 days, fall-back inside
    expect(range('2026-01-01', '2026-04-01', 'America/New_York')).toEqual({
      ok: false,
      issues: [{ path: 'inputs.end_date', message: 'the range may span at most 90 days' }],
    });
  });

  test('when a date and a date-time are mixed, then the date is a local day and the date-time exact', () => {
    const r = ok(range('2024-01-15', '2024-01-15T12:00:00-05:00', 'America/New_York'));
    expect(r.endMs - r.startMs).toBe(12 * H);
  });
});

describe('local days, worked out without luxon', () => {
  // Zones with unusual transitions: at midnight (Santiago, Havana, Beirut), 30 minutes (Lord Howe), a skipped
  // day (Apia, end of 2011), a southern-hemisphere DST (Sydney), none (Kolkata), and the everyday ones.
  const ZONES = [
    'America/New_York',
    'Europe/Berlin',
    'America/Santiago',
    'America/Havana',
    'Asia/Beirut',
    'Australia/Lord_Howe',
    'Pacific/Apia',
    'Australia/Sydney',
    'Asia/Kolkata',
    'UTC',
  ];

  test("when every day of 2011-2012 and 2026-2027 starts and ends, then the instants are luxon's, DST and skipped days included", () => {
    const differences: string[] = [];
    const days = [2011, 2026].flatMap((year) =>
      Array.from({ length: 731 }, (_, i) => DateTime.fromObject({ year, month: 1, day: 1 }, { zone: 'UTC' }).plus({ days: i })),
    );
    for (const zone of ZONES) {
      for (const day of days) {
        const date = day.toISODate()!;
        const start = DateTime.fromISO(date, { zone }).startOf('day').toMillis();
        const end = DateTime.fromISO(date, { zone }).plus({ days: 1 }).startOf('day').toMillis();
        if (startOfLocalDay(date, zone) !== start) differences.push(`${zone} ${date} start`);
        const r = resolveRange(date, date, zone, paths, 90);
        if (!r.ok || r.range.startMs !== start || r.range.endMs !== end) differences.push(`${zone} ${date} range`);
      }
    }
    expect(differences).toEqual([]);
  });

  test('when a date does not exist or is not YYYY-MM-DD, then it is no civil date; leap days follow the Gregorian rule', () => {
    for (const good of ['2024-02-29', '2000-02-29', '1999-12-31', '0001-01-01']) expect(isCivilDate(good)).toBe(true);
    for (const bad of [
      '2023-02-29',
      '1900-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-1-01',
      '20240101',
      ' 2024-01-01',
      '2024-01-01T00:00:00Z',
    ]) {
      expect(isCivilDate(bad)).toBe(false);
    }
  });
});

describe('date-times read and written by hand', () => {
  // The regular expression and Date-based code these replaced, as the reference.
  const REFERENCE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/i;
  const referenceMs = (s: string): number | undefined => {
    const m = REFERENCE.exec(s);
    if (!m) return undefined;
    const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
    const sec = m[6] === undefined ? 0 : Number(m[6]);
    const valid = DateTime.fromObject({ year: y, month: mo, day: d }, { zone: 'UTC' }).isValid;
    if (y < 1000 || !valid || h > 23 || mi > 59 || sec > 59) return undefined;
    const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
    const offset = m[8] === undefined ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
    if (m[8] === undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
    return Date.UTC(y, mo - 1, d, h, mi, sec, ms) - offset * 60_000;
  };

  test('when thousands of well- and ill-formed date-times are read, then each reads as the regular expression reads it', () => {
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
    const two = () => String(rand(100)).padStart(2, '0');
    const differences: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const s =
        `${pick(['2024', '1999', '0999', '9999', '20x4', '202'])}-${pick(['01', '02', '12', '13', '00', two()])}-${pick(['01', '28', '29', '30', '31', '00', two()])}` +
        `${pick(['T', 't', ' ', 'X'])}${pick(['00', '23', '24', two()])}:${pick(['00', '59', '60', two()])}` +
        `${pick(['', `:${two()}`, `:${two()}.${'123456789012'.slice(0, rand(12))}`, ':5'])}` +
        `${pick(['Z', 'z', '+00:00', '-05:00', '+05:30', '+24:00', '-00:60', '+0530', '', 'Z ', '+14:00'])}`;
      if (offsetDateTimeMs(s) !== referenceMs(s)) differences.push(s);
    }
    expect(differences).toEqual([]);
  });

  test('when a fraction is given, then its milliseconds are exact (0.57 s is 570 ms, not the 569 a float gives)', () => {
    expect(offsetDateTimeMs('2024-01-15T09:00:00.57Z')! % 1000).toBe(570);
    expect(offsetDateTimeMs('2024-01-15T09:00:00.123456789+01:00')! % 1000).toBe(123);
  });

  test('when instants across four centuries are formatted, then the text is what toISOString gives, with the zone offset', () => {
    for (let ms = Date.UTC(1600, 0, 1); ms < Date.UTC(2400, 0, 1); ms += 86_400_000 * 3 + 3_723_456) {
      expect(formatInZone(ms, 'UTC')).toBe(`${new Date(ms).toISOString().slice(0, 19)}+00:00`);
    }
  });
});

describe('working-hours windows across DST', () => {
  const windowsOf = (start: string, end: string, zone: string, hours = DEFAULT_WORKING_HOURS) => {
    const r = ok(range(start, end, zone));
    return workingWindows(hours, zone, { start: r.startMs, end: r.endMs }).map((w) => [w.day, w.weekday, iso(w.start, zone), iso(w.end, zone)]);
  };

  test('when New York springs forward (Sun 2026-03-08), then Monday still works 09:00-17:00 at the new offset', () => {
    expect(windowsOf('2026-03-06', '2026-03-09', 'America/New_York')).toEqual([
      ['2026-03-06', 'friday', '2026-03-06T09:00:00-05:00', '2026-03-06T17:00:00-05:00'],
      ['2026-03-09', 'monday', '2026-03-09T09:00:00-04:00', '2026-03-09T17:00:00-04:00'],
    ]);
  });

  test('when New York falls back (Sun 2026-11-01), then a 00:00-24:00 Sunday is 25 hours long', () => {
    const all = { start: '00:00', end: '24:00', days: ['sunday' as const] };
    const r = ok(range('2026-11-01', '2026-11-01', 'America/New_York'));
    const [w] = workingWindows(all, 'America/New_York', { start: r.startMs, end: r.endMs });
    expect(w!.end - w!.start).toBe(25 * H);
    expect(windowsOf('2026-11-02', '2026-11-02', 'America/New_York')).toEqual([
      ['2026-11-02', 'monday', '2026-11-02T09:00:00-05:00', '2026-11-02T17:00:00-05:00'],
    ]);
  });

  test('when Berlin springs forward (Sun 2026-03-29) and falls back (Sun 2026-10-25), then the next Mondays are 09:00-17:00 local', () => {
    expect(windowsOf('2026-03-27', '2026-03-30', 'Europe/Berlin')).toEqual([
      ['2026-03-27', 'friday', '2026-03-27T09:00:00+01:00', '2026-03-27T17:00:00+01:00'],
      ['2026-03-30', 'monday', '2026-03-30T09:00:00+02:00', '2026-03-30T17:00:00+02:00'],
    ]);
    expect(windowsOf('2026-10-23', '2026-10-26', 'Europe/Berlin')).toEqual([
      ['2026-10-23', 'friday', '2026-10-23T09:00:00+02:00', '2026-10-23T17:00:00+02:00'],
      ['2026-10-26', 'monday', '2026-10-26T09:00:00+01:00', '2026-10-26T17:00:00+01:00'],
    ]);
  });

  test('when working hours start inside the skipped hour, then the window starts at the first real instant', () => {
    const night = { start: '02:30', end: '06:00', days: ['sunday' as const] };
    const r = ok(range('2026-03-29', '2026-03-29', 'Europe/Berlin'));
    const [w] = workingWindows(night, 'Europe/Berlin', { start: r.startMs, end: r.endMs });
    expect(iso(w!.start, 'Europe/Berlin')).toBe('2026-03-29T03:30:00+02:00');
    expect(iso(w!.end, 'Europe/Berlin')).toBe('2026-03-29T06:00:00+02:00');
  });

  test('when the range is date-times, then windows are clipped to it', () => {
    const r = ok(range('2024-01-15T12:00:00-05:00', '2024-01-16T10:00:00-05:00', 'America/New_York'));
    const ws = workingWindows(DEFAULT_WORKING_HOURS, 'America/New_York', { start: r.startMs, end: r.endMs });
    expect(ws.map((w) => [iso(w.start, 'America/New_York'), iso(w.end, 'America/New_York')])).toEqual([
      ['2024-01-15T12:00:00-05:00', '2024-01-15T17:00:00-05:00'],
      ['2024-01-16T09:00:00-05:00', '2024-01-16T10:00:00-05:00'],
    ]);
  });
});
