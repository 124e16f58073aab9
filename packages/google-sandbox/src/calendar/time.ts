/**
 * Time arithmetic for Calendar: RFC 3339 parsing, IANA time zones (through Intl, so no tz database is bundled),
 * and the formats Google writes. Calendar dates are civil dates (`Ymd`), kept apart from instants (ms) because
 * an all-day event or a recurrence is defined on the wall clock of a zone, not on UTC.
 */

export interface Ymd {
  y: number;
  m: number; // 1-12
  d: number;
}

export interface WallTime extends Ymd {
  h: number;
  mi: number;
  s: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** IANA names only: Intl also accepts offsets such as "+01:00", which Google rejects. */
export function isValidTimeZone(tz: string): boolean {
  if (!/^[A-Za-z]/.test(tz)) return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `tz` at instant `ms`. */
export function wallTime(ms: number, tz: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, h: parts.hour!, mi: parts.minute!, s: parts.second! };
}

const wallToUtcMs = (w: WallTime) => Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s);

/** Offset of `tz` from UTC at instant `ms`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(ms: number, tz: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallToUtcMs(wallTime(whole, tz)) - whole;
}

/** The instant at which `tz`'s wall clock shows `w` (a time skipped by a DST jump lands just after it). */
export function zonedToUtc(w: WallTime, tz: string): number {
  const guess = wallToUtcMs(w);
  const first = guess - zoneOffsetMs(guess, tz);
  const second = guess - zoneOffsetMs(first, tz);
  return second;
}

/** Local midnight of a civil date in `tz`. */
export const startOfDay = (date: Ymd, tz: string) => zonedToUtc({ ...date, h: 0, mi: 0, s: 0 }, tz);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export const formatYmd = (d: Ymd) => `${pad(d.y, 4)}-${pad(d.m)}-${pad(d.d)}`;

/** RFC 3339 in `tz`'s offset, the way Google renders event times: `2026-11-23T10:00:00+01:00`, or `Z` at offset zero. */
export function formatInZone(ms: number, tz: string): string {
  const w = wallTime(ms, tz);
  const offset = Math.round(zoneOffsetMs(ms, tz) / 60_000);
  const zone = offset === 0 ? 'Z' : `${offset > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${formatYmd(w)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}${zone}`;
}

/** `2026-11-23T09:00:00Z`: whole seconds, UTC. */
export const formatUtcSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** iCalendar basic UTC form, as used in recurring-instance ids: `20261123T090000Z`. */
export const formatBasicUtc = (ms: number) => formatUtcSeconds(ms).replace(/[-:]/g, '');

export const formatBasicDate = (d: Ymd) => formatYmd(d).replace(/-/g, '');

export function isRealDate(d: Ymd): boolean {
  const t = new Date(Date.UTC(d.y, d.m - 1, d.d));
  return d.y >= 1 && t.getUTCFullYear() === d.y && t.getUTCMonth() === d.m - 1 && t.getUTCDate() === d.d;
}

export function parseDate(s: string): Ymd | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return undefined;
  const d = { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
  return isRealDate(d) ? d : undefined;
}

export type ParsedDateTime = { kind: 'instant'; ms: number } | { kind: 'floating'; wall: WallTime };

/**
 * An RFC 3339 date-time. Without an offset it is "floating" (a wall time), which Calendar accepts only together
 * with a `timeZone`. Fractions of a second are accepted and dropped, as Google does.
 */
export function parseDateTime(s: string): ParsedDateTime | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/.exec(s);
  if (!m) return undefined;
  const wall: WallTime = { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]), h: Number(m[4]), mi: Number(m[5]), s: Number(m[6]) };
  if (!isRealDate(wall) || wall.h > 23 || wall.mi > 59 || wall.s > 60) return undefined;
  const zone = m[7];
  if (!zone) return { kind: 'floating', wall };
  const offsetMin = /^[Zz]$/.test(zone) ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  return { kind: 'instant', ms: wallToUtcMs(wall) - offsetMin * 60_000 };
}

/** A query-string or request timestamp that must carry its own offset (timeMin, timeMax, updatedMin). */
export function parseInstant(s: string): number | undefined {
  const p = parseDateTime(s);
  return p?.kind === 'instant' ? p.ms : undefined;
}

export function addDays(d: Ymd, n: number): Ymd {
  const t = new Date(Date.UTC(d.y, d.m - 1, d.d + n));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/** Whole days from `a` to `b`. */
export const daysBetween = (a: Ymd, b: Ymd) => Math.round((Date.UTC(b.y, b.m - 1, b.d) - Date.UTC(a.y, a.m - 1, a.d)) / 86_400_000);

/** 0 = Sunday … 6 = Saturday. */
export const weekday = (d: Ymd) => new Date(Date.UTC(d.y, d.m - 1, d.d)).getUTCDay();

export const compareYmd = (a: Ymd, b: Ymd) => daysBetween(b, a);
