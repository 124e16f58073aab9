import type { Timing } from './state';
import {
  type Ymd,
  addDays,
  compareYmd,
  daysBetween,
  formatBasicDate,
  formatBasicUtc,
  isRealDate,
  isValidTimeZone,
  parseDateTime,
  startOfDay,
  wallTime,
  weekday,
  zonedToUtc,
} from './time';

/**
 * RFC 5545 recurrence, the subset the sandbox expands: RRULE with FREQ=DAILY|WEEKLY|MONTHLY|YEARLY, INTERVAL,
 * COUNT, UNTIL, BYDAY (with ordinals for MONTHLY, e.g. 1MO / -1FR), BYMONTHDAY, BYMONTH and WKST; plus EXDATE
 * and RDATE. That covers what people create in Google Calendar's UI. Anything else (BYSETPOS, BYWEEKNO,
 * BYYEARDAY, BYHOUR…, sub-daily frequencies) is refused with a 400 naming the part, rather than silently
 * expanded wrong. Occurrences are generated on the event's wall clock in its time zone, so a 09:00 meeting stays
 * at 09:00 across DST changes, as in Google.
 */

const DAY_CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const;

export interface RecurrenceRule {
  freq: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
  interval: number;
  count?: number;
  until?: { date: Ymd } | { ms: number };
  /** Weekday (0 = Sunday) with an optional ordinal (MONTHLY only; 0 = every). */
  byDay?: Array<{ day: number; nth: number }>;
  byMonthDay?: number[];
  byMonth?: number[];
  wkst: number;
}

type DateValue = { date: Ymd } | { ms: number };

export interface Recurrence {
  rule?: RecurrenceRule;
  exdates: DateValue[];
  rdates: DateValue[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const INVALID = 'Invalid recurrence rule.';
const unsupported = (part: string): Parsed<never> => ({ ok: false, message: `The Google sandbox does not expand recurrences using ${part}.` });

function parseDateValue(text: string, params: Record<string, string>, tz: string): DateValue | undefined {
  if (params.VALUE === 'DATE' || /^\d{8}$/.test(text)) {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
    const date = m ? { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) } : undefined;
    return date && isRealDate(date) ? { date } : undefined;
  }
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(text);
  if (!m) return undefined;
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ? 'Z' : ''}`;
  const parsed = parseDateTime(iso);
  if (!parsed) return undefined;
  if (parsed.kind === 'instant') return { ms: parsed.ms };
  const zone = params.TZID ?? tz;
  return isValidTimeZone(zone) ? { ms: zonedToUtc(parsed.wall, zone) } : undefined;
}

function parseRule(text: string, tz: string): Parsed<RecurrenceRule> {
  const parts = new Map<string, string>();
  for (const part of text.split(';')) {
    const [k, v] = part.split('=');
    if (!k || v === undefined || parts.has(k.toUpperCase())) return { ok: false, message: INVALID };
    parts.set(k.toUpperCase(), v.toUpperCase());
  }
  const freq = parts.get('FREQ');
  if (freq === 'HOURLY' || freq === 'MINUTELY' || freq === 'SECONDLY') return unsupported(`FREQ=${freq}`);
  if (freq !== 'DAILY' && freq !== 'WEEKLY' && freq !== 'MONTHLY' && freq !== 'YEARLY') return { ok: false, message: INVALID };
  const rule: RecurrenceRule = { freq, interval: 1, wkst: 1 };
  for (const [k, v] of parts) {
    if (k === 'FREQ') continue;
    if (k === 'INTERVAL' || k === 'COUNT') {
      if (!/^\d{1,6}$/.test(v) || Number(v) < 1) return { ok: false, message: INVALID };
      if (k === 'INTERVAL') rule.interval = Number(v);
      else rule.count = Number(v);
    } else if (k === 'UNTIL') {
      const until = parseDateValue(v, {}, tz);
      if (!until) return { ok: false, message: INVALID };
      rule.until = until;
    } else if (k === 'WKST') {
      const i = DAY_CODES.indexOf(v as (typeof DAY_CODES)[number]);
      if (i < 0) return { ok: false, message: INVALID };
      rule.wkst = i;
    } else if (k === 'BYDAY') {
      const days: Array<{ day: number; nth: number }> = [];
      for (const item of v.split(',')) {
        const m = /^([+-]?\d{1,2})?(SU|MO|TU|WE|TH|FR|SA)$/.exec(item);
        if (!m) return { ok: false, message: INVALID };
        const nth = m[1] ? Number(m[1]) : 0;
        if (nth !== 0 && freq !== 'MONTHLY') return unsupported(`BYDAY ordinals with FREQ=${freq}`);
        if (Math.abs(nth) > 5) return { ok: false, message: INVALID };
        days.push({ day: DAY_CODES.indexOf(m[2] as (typeof DAY_CODES)[number]), nth });
      }
      rule.byDay = days;
    } else if (k === 'BYMONTHDAY' || k === 'BYMONTH') {
      const values = v.split(',').map(Number);
      const max = k === 'BYMONTH' ? 12 : 31;
      if (values.some((n) => !Number.isInteger(n) || n === 0 || Math.abs(n) > max || (k === 'BYMONTH' && n < 0))) return { ok: false, message: INVALID };
      if (k === 'BYMONTH') rule.byMonth = values;
      else rule.byMonthDay = values;
    } else if (['BYSETPOS', 'BYWEEKNO', 'BYYEARDAY', 'BYHOUR', 'BYMINUTE', 'BYSECOND'].includes(k)) {
      return unsupported(k);
    } else {
      return { ok: false, message: INVALID };
    }
  }
  if (rule.count !== undefined && rule.until) return { ok: false, message: INVALID };
  return { ok: true, value: rule };
}

/** Parses an event's `recurrence` lines; `tz` is the zone floating EXDATE/RDATE/UNTIL values are read in. */
export function parseRecurrence(lines: readonly string[], tz: string): Parsed<Recurrence> {
  const out: Recurrence = { exdates: [], rdates: [] };
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) return { ok: false, message: INVALID };
    const [name, ...rawParams] = line.slice(0, colon).split(';');
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const [k, v] = p.split('=');
      if (!k || v === undefined) return { ok: false, message: INVALID };
      params[k.toUpperCase()] = v;
    }
    const value = line.slice(colon + 1).trim();
    switch (name?.toUpperCase()) {
      case 'RRULE': {
        if (out.rule) return unsupported('more than one RRULE');
        const rule = parseRule(value, tz);
        if (!rule.ok) return rule;
        out.rule = rule.value;
        break;
      }
      case 'EXDATE':
      case 'RDATE': {
        if (params.VALUE === 'PERIOD') return unsupported('RDATE periods');
        for (const v of value.split(',')) {
          const d = parseDateValue(v.trim(), params, tz);
          if (!d) return { ok: false, message: INVALID };
          (name.toUpperCase() === 'EXDATE' ? out.exdates : out.rdates).push(d);
        }
        break;
      }
      case 'EXRULE':
        return unsupported('EXRULE');
      default:
        return { ok: false, message: INVALID };
    }
  }
  return { ok: true, value: out };
}

/** Candidate dates of one period of the rule (the n-th day/week/month/year from the start), sorted. */
function periodDates(rule: RecurrenceRule, start: Ymd, n: number): Ymd[] {
  const step = n * rule.interval;
  let dates: Ymd[];
  if (rule.freq === 'DAILY') {
    dates = [addDays(start, step)];
  } else if (rule.freq === 'WEEKLY') {
    const weekStart = addDays(start, -((weekday(start) - rule.wkst + 7) % 7) + 7 * step);
    const days = rule.byDay ? rule.byDay.map((b) => b.day) : [weekday(start)];
    dates = [...new Set(days.map((d) => (d - rule.wkst + 7) % 7))].sort((a, b) => a - b).map((off) => addDays(weekStart, off));
  } else {
    const months: Array<{ y: number; m: number }> = [];
    if (rule.freq === 'MONTHLY') {
      const total = start.y * 12 + (start.m - 1) + step;
      months.push({ y: Math.floor(total / 12), m: (total % 12) + 1 });
    } else {
      for (const m of rule.byMonth ?? [start.m]) months.push({ y: start.y + step, m });
    }
    dates = months.flatMap(({ y, m }) => monthDates(rule, start, y, m));
  }
  return dates.filter((d) => (!rule.byMonth || rule.byMonth.includes(d.m)) && (!rule.byMonthDay || matchesMonthDay(d, rule.byMonthDay)));
}

const daysInMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

function matchesMonthDay(d: Ymd, byMonthDay: number[]): boolean {
  const len = daysInMonth(d.y, d.m);
  return byMonthDay.some((n) => (n > 0 ? n === d.d : len + n + 1 === d.d));
}

/** The days of month y-m a MONTHLY/YEARLY rule selects (before BYMONTHDAY filtering when BYDAY is also given). */
function monthDates(rule: RecurrenceRule, start: Ymd, y: number, m: number): Ymd[] {
  const len = daysInMonth(y, m);
  const all = Array.from({ length: len }, (_, i) => ({ y, m, d: i + 1 }));
  if (rule.byDay) {
    return all.filter((date) =>
      rule.byDay!.some((b) => {
        if (weekday(date) !== b.day) return false;
        if (b.nth === 0) return true;
        const index = Math.floor((date.d - 1) / 7) + 1; // 1st, 2nd… of that weekday
        const fromEnd = Math.floor((len - date.d) / 7) + 1;
        return b.nth > 0 ? index === b.nth : fromEnd === -b.nth;
      }),
    );
  }
  if (rule.byMonthDay) return all; // filtered by BYMONTHDAY afterwards
  return start.d <= len ? [{ y, m, d: start.d }] : []; // the 31st skips short months, per RFC 5545
}

export interface Occurrence {
  /** Suffix of the instance id: the original start in iCalendar basic form (`20261123T090000Z` or `20261123`). */
  key: string;
  timing: Timing;
}

export interface ExpandOptions {
  /** Only occurrences ending after this instant… */
  from?: number;
  /** …and starting before this one. */
  to?: number;
  /** Stop after this many occurrences have been produced (the window filter applies first). */
  limit: number;
}

/** Instants the window filter compares; all-day occurrences use midnights in `tz`. */
export function timingBounds(timing: Timing, tz: string): { start: number; end: number } {
  return timing.allDay ? { start: startOfDay(timing.startDate, tz), end: startOfDay(timing.endDate, tz) } : { start: timing.startMs, end: timing.endMs };
}

export const occurrenceKey = (timing: Timing) => (timing.allDay ? formatBasicDate(timing.startDate) : formatBasicUtc(timing.startMs));

/**
 * The occurrences of a recurring event in chronological order. The first is always the event's own start
 * (Google counts it even when the rule would not select it); EXDATEs remove, RDATEs add.
 */
export function expandOccurrences(timing: Timing, recurrence: Recurrence, tz: string, options: ExpandOptions): Occurrence[] {
  const startDate = timing.allDay ? timing.startDate : wallTime(timing.startMs, tz);
  const wall = timing.allDay ? undefined : wallTime(timing.startMs, tz);
  const at = (date: Ymd): Timing =>
    timing.allDay
      ? { allDay: true, startDate: date, endDate: addDays(date, daysBetween(timing.startDate, timing.endDate)) }
      : (() => {
          const startMs = zonedToUtc({ ...date, h: wall!.h, mi: wall!.mi, s: wall!.s }, tz);
          return { allDay: false, startMs, endMs: startMs + (timing.endMs - timing.startMs) };
        })();
  const fromValue = (v: DateValue): Timing | undefined => {
    if ('date' in v) return timing.allDay ? at(v.date) : undefined;
    if (timing.allDay) return undefined;
    return { allDay: false, startMs: v.ms, endMs: v.ms + (timing.endMs - timing.startMs) };
  };
  const excluded = new Set(recurrence.exdates.map((v) => ('date' in v ? formatBasicDate(v.date) : formatBasicUtc(v.ms))));
  const rule = recurrence.rule;
  const untilMs = rule?.until && ('ms' in rule.until ? rule.until.ms : startOfDay(addDays(rule.until.date, 1), tz) - 1);
  const startOf = (t: Timing) => timingBounds(t, tz).start;

  // The rule's own sequence (COUNT counts these, including the start), bounded by UNTIL, the window's end, a
  // safety cap and, for an open-ended query, by having produced enough occurrences after the window's start.
  const generated: Timing[] = [timing];
  if (rule) {
    const enough = options.limit + excluded.size;
    let pastFrom = 0;
    let emptyPeriods = 0;
    const full = () => generated.length >= (rule.count ?? 100_000) || (options.to === undefined && pastFrom > enough);
    for (let n = 0; !full() && emptyPeriods < 1000; n++) {
      const dates = periodDates(rule, startDate, n).filter((d) => compareYmd(d, startDate) > 0);
      emptyPeriods = dates.length ? 0 : emptyPeriods + 1;
      let stop = false;
      for (const d of dates) {
        const t = at(d);
        const s = startOf(t);
        if ((untilMs !== undefined && s > untilMs) || (options.to !== undefined && s >= options.to)) {
          stop = true;
          break;
        }
        generated.push(t);
        if (options.from === undefined || timingBounds(t, tz).end > options.from) pastFrom++;
        if (full()) break;
      }
      if (stop) break;
    }
  }
  const extra = recurrence.rdates.map(fromValue).filter((t): t is Timing => t !== undefined);
  const byKey = new Map<string, Timing>();
  for (const t of [...generated, ...extra]) byKey.set(occurrenceKey(t), t);
  const out: Occurrence[] = [];
  for (const [key, t] of [...byKey].sort((a, b) => startOf(a[1]) - startOf(b[1]))) {
    if (excluded.has(key)) continue;
    const bounds = timingBounds(t, tz);
    if (options.from !== undefined && bounds.end <= options.from) continue;
    if (options.to !== undefined && bounds.start >= options.to) continue;
    out.push({ key, timing: t });
    if (out.length >= options.limit) break;
  }
  return out;
}
