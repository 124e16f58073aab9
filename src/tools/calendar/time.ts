import { DateTime } from 'luxon';
import type { ValidationIssue } from '../../core/validation';
import { ianaZone, zoneNamed } from './zones';

/**
 * Time for the calendar tools, on luxon (the IANA rules come from the runtime's ICU data, which Node keeps current).
 * Inputs are either civil dates ("2024-01-15": a whole local day in the zone in use) or RFC 3339 date-times that
 * carry their offset (a bare wall-clock time is ambiguous across zones and DST, so it is refused). Every time a
 * tool returns is RFC 3339 in the zone the caller asked for, or the calendar's.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** IANA names only ("America/New_York", "UTC"); luxon would also take fixed offsets, which Google refuses. */
export const isIanaZone = (zone: string): boolean => ianaZone(zone) !== undefined;

const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
/** Days of month `m` (1-12) of year `y` in the proleptic Gregorian calendar (Date.UTC would read years 0-99 as 19xx). */
const daysInMonth = (y: number, m: number) => (m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31);

/** The parts of a civil date "YYYY-MM-DD" that exists (no Feb 30); undefined otherwise. */
function civilParts(s: string): { y: number; m: number; d: number } | undefined {
  const match = DATE.exec(s);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m) ? { y, m, d } : undefined;
}

/** A date "YYYY-MM-DD" that exists. Checked by hand: luxon's parse cost ~2.5 µs, and a call checks several. */
export const isCivilDate = (s: string): boolean => civilParts(s) !== undefined;

/** The number written by the `len` ASCII digits at `at`, or NaN when one is not a digit. */
function digits(s: string, at: number, len: number): number {
  let n = 0;
  for (let i = at; i < at + len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * The instant of an RFC 3339 date-time with an offset, in ms; undefined for anything else (no offset, Feb 30,
 * 25:00…). `YYYY-MM-DDTHH:MM[:SS[.fraction]](Z|±HH:MM)`, T and Z in either case, a fraction of 1-9 digits
 * (milliseconds kept, the rest dropped). Read character by character rather than through luxon or a regular
 * expression: freeBusy answers carry thousands of these, and this costs a tenth of a microsecond each.
 */
export function offsetDateTimeMs(s: string): number | undefined {
  const n = s.length;
  if (n < 17 || n > 35) return undefined;
  const at = (i: number) => s.charCodeAt(i);
  if (at(4) !== 0x2d || at(7) !== 0x2d || (at(10) | 0x20) !== 0x74 || at(13) !== 0x3a) return undefined; // - - T :
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  let i = 16;
  let sec = 0;
  let ms = 0;
  if (at(i) === 0x3a) {
    sec = digits(s, i + 1, 2);
    i += 3;
    if (at(i) === 0x2e) {
      let len = 0;
      while (len < 9 && at(i + 1 + len) >= 0x30 && at(i + 1 + len) <= 0x39) len++;
      if (len === 0) return undefined;
      for (let k = 0; k < 3; k++) ms = ms * 10 + (k < len ? at(i + 1 + k) - 48 : 0);
      i += 1 + len;
    }
  }
  let offsetMin: number;
  if ((at(i) | 0x20) === 0x7a && i + 1 === n)
    offsetMin = 0; // Z
  else if ((at(i) === 0x2b || at(i) === 0x2d) && i + 6 === n && at(i + 3) === 0x3a) {
    const oh = digits(s, i + 1, 2);
    const om = digits(s, i + 4, 2);
    if (!(oh <= 23 && om <= 59)) return undefined; // NaN fails too
    offsetMin = (at(i) === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else return undefined;
  if (!(y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) && h <= 23 && mi <= 59 && sec <= 59)) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, sec, ms) - offsetMin * 60_000;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * A formatter of instants as RFC 3339 in `zone` with the offset in force at each instant, whole seconds:
 * `2024-01-15T09:00:00-05:00` (UTC: `+00:00`). The zone remembers its offsets (zones.ts), so formatting thousands
 * of busy periods stays cheap.
 */
export function zoneFormatter(zone: string): (ms: number) => string {
  const iana = zoneNamed(zone);
  return (ms) => {
    const offset = iana.offset(ms);
    const abs = Math.abs(offset);
    const t = new Date(ms + offset * 60_000); // the wall clock, read through the UTC getters
    const date = `${t.getUTCFullYear()}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}`;
    return `${date}T${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}${offset < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
  };
}

export const formatInZone = (ms: number, zone: string): string => zoneFormatter(zone)(ms);

const DAY_MS = 86_400_000;

/**
 * The instant of local midnight `days` after civil date `date` in `zone` — when no offset change lies within a
 * day either side of it (tz rules never change an offset and change it back within a day), so that midnight
 * exists exactly once and is found with two offset lookups; undefined near a transition, where luxon decides.
 */
function plainMidnight(date: string, days: number, zone: string): number | undefined {
  const parts = civilParts(date);
  if (!parts) return undefined;
  const wall = new Date(0);
  wall.setUTCFullYear(parts.y, parts.m - 1, parts.d + days); // wall-clock midnight, written as if it were UTC
  const wallMs = wall.getTime();
  const z = zoneNamed(zone);
  const offset = z.offset(wallMs - DAY_MS);
  return offset === z.offset(wallMs + DAY_MS) ? wallMs - offset * 60_000 : undefined;
}

/** Local midnight starting `date` in `zone` (luxon moves a midnight that DST skips to the first valid instant). */
export const startOfLocalDay = (date: string, zone: string): number =>
  plainMidnight(date, 0, zone) ??
  DateTime.fromISO(date, { zone: zoneNamed(zone) })
    .startOf('day')
    .toMillis();

/** Local midnight ending `date` in `zone`: the start of the next day. */
const endOfLocalDay = (date: string, zone: string): number =>
  plainMidnight(date, 1, zone) ??
  DateTime.fromISO(date, { zone: zoneNamed(zone) })
    .plus({ days: 1 })
    .startOf('day')
    .toMillis();

/** A range endpoint as given: a civil date or a date-time with offset. */
export type Bound = string;

export interface Range {
  startMs: number;
  endMs: number;
}

/**
 * Turns a start/end pair into instants: a start date is its local midnight, an end date is inclusive (the range
 * runs to the next local midnight), date-times are taken as they are. Refuses an empty or reversed range and one
 * longer than `maxDays` (measured as the instants' distance, so a DST day counts as one day). `paths` name the
 * two inputs for the issues.
 */
export function resolveRange(
  start: Bound,
  end: Bound,
  zone: string,
  paths: { start: string; end: string },
  maxDays: number,
): { ok: true; range: Range } | { ok: false; issues: ValidationIssue[] } {
  const startMs = isCivilDate(start) ? startOfLocalDay(start, zone) : offsetDateTimeMs(start);
  const endMs = isCivilDate(end) ? endOfLocalDay(end, zone) : offsetDateTimeMs(end);
  const issues: ValidationIssue[] = [];
  if (startMs === undefined) issues.push({ path: paths.start, message: 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time with an offset' });
  if (endMs === undefined) issues.push({ path: paths.end, message: 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time with an offset' });
  if (startMs === undefined || endMs === undefined) return { ok: false, issues };
  if (endMs <= startMs) return { ok: false, issues: [{ path: paths.end, message: 'must be after the start' }] };
  // A DST change inside the range adds at most an hour to the wall-clock length; allow for it.
  if (endMs - startMs > maxDays * 86_400_000 + 3_600_000) {
    return { ok: false, issues: [{ path: paths.end, message: `the range may span at most ${maxDays} days` }] };
  }
  return { ok: true, range: { startMs, endMs } };
}

/** Whether resolving the pair needs a zone (a civil date is a local day), i.e. whether it must wait for one. */
export const needsZone = (start: Bound, end: Bound): boolean => isCivilDate(start) || isCivilDate(end);

/**
 * The range resolved before any Google call, so bad input costs no request: when its zone is given or not needed
 * (date-times only) the answer is final; null when civil dates must wait for the calendar's own zone.
 */
export function resolveRangeEarly(
  start: Bound,
  end: Bound,
  zone: string | undefined,
  paths: { start: string; end: string },
  maxDays: number,
): ReturnType<typeof resolveRange> | null {
  if (zone === undefined && needsZone(start, end)) return null;
  return resolveRange(start, end, zone ?? 'UTC', paths, maxDays);
}
