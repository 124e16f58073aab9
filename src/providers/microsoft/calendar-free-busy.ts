import { z } from 'zod';
import { type CalendarBusy, type Interval, mergeIntervals } from '../../core/calendar';
import { type Result, fail, ok } from '../../core/errors';
import { instantOf } from './calendar-answers';
import { type Graph, calendarPath, unexpectedAnswer } from './calendar-graph';
import { inTurns, windowsOf } from './calendar-intervals';
import { createdLately } from './calendar-memory';
import { busyOf, recentBusy } from './calendar-recent';
import { calendarView } from './calendar-view';

/**
 * Busy time of people and calendars over a range.
 *
 * Addresses ("primary" is the account's own) go to POST /me/calendar/getSchedule (calendar-getschedule; limits from
 * the free/busy concept page): "up to 20 entities at once" — more are asked in batches — and a period "less than
 * 62 days" — longer ranges are asked in windows of 61 × 24 h and joined, a period across the cut coming back whole.
 * `availabilityView` is not read (scheduleItems carry the times), so its interval is the largest Graph takes, which
 * keeps the answer small. Each scheduleItem's status: `free` is ignored; `busy`, `tentative` (as Google's freeBusy
 * counts a tentative event), `oof`, `workingElsewhere` (an event holds that time, although Graph's availabilityView
 * shows it as free), `unknown` and any status Graph adds later count as busy — fail closed. A schedule with
 * `error`, or missing from the answer, is unreadable with a reason — never free.
 *
 * Other ids are the account's own calendars (what listCalendars answers): getSchedule takes only addresses, so
 * their busy time comes from calendarView — events not cancelled and not shown as free; all-day events as whole
 * days in `zone`. An unknown calendar is unreadable (`notFound`), not a failure of the whole call.
 *
 * Both lag behind a create; the events the Hub created (on any replica sharing its Redis) in the account's own
 * calendars during the last minute are joined in as Graph holds them (calendar-recent.ts), so the Hub's own new meeting is never free time.
 */

const MAX_SCHEDULES = 20;
const MAX_SPAN_MS = 61 * 86_400_000;
const VIEW_INTERVAL_MINUTES = 1440;
/** Requests under way at once: Outlook allows four per app and mailbox, shared with mail (limits.ts). */
const PARALLEL = 2;

const dateTimeTimeZone = z.object({ dateTime: z.string().min(1).max(64), timeZone: z.string().max(200).nullish() });
const scheduleSchema = z.object({
  value: z
    .array(
      z.object({
        scheduleId: z.string().max(1024).nullish(),
        scheduleItems: z
          .array(z.object({ status: z.string().max(64).nullish(), start: dateTimeTimeZone, end: dateTimeTimeZone }))
          .max(20_000)
          .nullish(),
        error: z.object({ message: z.string().nullish(), responseCode: z.string().max(200).nullish() }).nullish(),
      }),
    )
    .max(100),
});

type Busy = Map<string, CalendarBusy>;

/** One getSchedule: busy per address (lower case) asked. */
async function schedules(graph: Graph, addresses: readonly string[], window: Interval): Promise<Result<Busy>> {
  const body = {
    schedules: addresses,
    startTime: { dateTime: new Date(window.start).toISOString().slice(0, 23), timeZone: 'UTC' },
    endTime: { dateTime: new Date(window.end).toISOString().slice(0, 23), timeZone: 'UTC' },
    availabilityViewInterval: VIEW_INTERVAL_MINUTES,
  };
  const answer = await graph.send('calendar.getSchedule', true, { method: 'POST', path: '/me/calendar/getSchedule', body }, scheduleSchema);
  if (!answer.ok) return answer;
  const byId = new Map(answer.value.value.map((s) => [(s.scheduleId ?? '').toLowerCase(), s] as const));
  const out: Busy = new Map();
  for (const address of addresses) {
    const info = byId.get(address);
    if (!info) out.set(address, { readable: false, reason: 'missing' });
    else if (info.error) out.set(address, { readable: false, reason: safeReason(info.error.responseCode) });
    else {
      const busy: Interval[] = [];
      for (const item of info.scheduleItems ?? []) {
        if (item.status === 'free') continue;
        const start = instantOf(item.start);
        const end = instantOf(item.end);
        if (start === undefined || end === undefined) return fail(unexpectedAnswer('calendar.getSchedule'));
        busy.push({ start, end });
      }
      out.set(address, { readable: true, busy });
    }
  }
  return ok(out);
}

/**
 * The availability service's codes as Graph passes them in freeBusyError.responseCode: numeric (its
 * ExceptionCode: "5009" for an address it cannot resolve, microsoft-graph-docs#11225; "5037" for a calendar the
 * caller may not see, NoFreeBusyAccessException), named as EWS names them so a caller can tell them apart.
 */
const AVAILABILITY_CODES = new Map([
  ['5009', 'ErrorMailRecipientNotFound'],
  ['5037', 'ErrorNoFreeBusyAccess'],
]);

/** Graph's responseCode as a reason a caller can show: a known code's name, a short identifier, or "error". */
const safeReason = (code: string | null | undefined) =>
  code ? (AVAILABILITY_CODES.get(code) ?? (/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(code) ? code : 'error')) : 'error';

/** One of the account's calendars, by id, read through calendarView. */
async function calendarBusy(graph: Graph, calendarId: string, range: Interval, zone: string): Promise<Result<CalendarBusy>> {
  const base = calendarPath(calendarId);
  if (base === undefined) return ok({ readable: false, reason: 'notFound' });
  const view = await calendarView(graph, base, range);
  if (!view.ok) {
    const status = view.error.details?.upstream_status;
    if (view.error.code === 'RESOURCE_NOT_FOUND') return ok({ readable: false, reason: 'notFound' });
    if (view.error.code === 'INTEGRATION_PERMISSION_DENIED' || status === 403) return ok({ readable: false, reason: 'accessDenied' });
    return view;
  }
  if (!view.value.complete) return ok({ readable: false, reason: 'tooManyEvents' });
  return ok({ readable: true, busy: busyOf(view.value.events, zone) });
}

/**
 * The account's own calendar an id stands for, where the Hub created events lately: "primary" and the
 * account's own address (getSchedule reads its default calendar), or a calendar id. Undefined for other people.
 */
async function ownCalendarOf(id: string, ownAddress: () => Promise<Result<string>>, hasRecentPrimary: boolean): Promise<Result<string | undefined>> {
  if (!id.includes('@')) return ok(id);
  if (!hasRecentPrimary) return ok(undefined);
  const own = await ownAddress();
  if (!own.ok) return own;
  return ok(own.value.trim().toLowerCase() === id.trim().toLowerCase() ? 'primary' : undefined);
}

export async function freeBusy(
  graph: Graph,
  ids: readonly string[],
  range: Interval,
  zone: string,
  ownAddress: () => Promise<Result<string>>,
): Promise<Result<Map<string, CalendarBusy>>> {
  const addressOf = new Map<string, string>(); // id → lower-case address
  const calendars: string[] = [];
  for (const id of ids) {
    if (id === 'primary') {
      const own = await ownAddress();
      if (!own.ok) return own;
      addressOf.set(id, own.value.toLowerCase());
    } else if (id.includes('@')) addressOf.set(id, id.trim().toLowerCase());
    else calendars.push(id);
  }
  const addresses = [...new Set(addressOf.values())];
  const windows = range.end > range.start ? windowsOf(range, MAX_SPAN_MS) : [];
  const batches: string[][] = [];
  for (let i = 0; i < addresses.length; i += MAX_SCHEDULES) batches.push(addresses.slice(i, i + MAX_SCHEDULES));

  const parts: Busy[] = [];
  const tasks = [
    ...batches.flatMap((batch) => windows.map((w) => () => schedules(graph, batch, w))),
    ...calendars.map((id) => async (): Promise<Result<Busy>> => {
      const got = windows.length === 0 ? ok<CalendarBusy>({ readable: true, busy: [] }) : await calendarBusy(graph, id, range, zone);
      return got.ok ? ok(new Map([[`calendar\u0000${id}`, got.value]])) : got;
    }),
  ];
  for (const answer of await inTurns(tasks, PARALLEL)) {
    if (!answer.ok) return answer;
    parts.push(answer.value);
  }

  const out = new Map<string, CalendarBusy>();
  const hasRecentPrimary = (await createdLately(graph.deps, 'primary')).length > 0;
  for (const id of ids) {
    const key = addressOf.get(id) ?? `calendar\u0000${id}`;
    const pieces = parts.map((p) => p.get(key)).filter((p): p is CalendarBusy => p !== undefined);
    const unreadable = pieces.find((p) => !p.readable);
    if (unreadable) out.set(id, unreadable);
    else
      out.set(id, {
        readable: true,
        busy: mergeIntervals(
          pieces.flatMap((p) => (p.readable ? p.busy : [])),
          range,
        ),
      });
    // The account's own new events, which getSchedule and calendarView may not show yet (calendar-recent.ts).
    const shown = out.get(id);
    if (!shown?.readable || windows.length === 0) continue;
    const calendarId = await ownCalendarOf(id, ownAddress, hasRecentPrimary);
    if (!calendarId.ok) return calendarId;
    if (calendarId.value === undefined) continue;
    const recent = await recentBusy(graph, calendarId.value, range, zone);
    if (!recent.ok) return recent;
    if (recent.value.length > 0) out.set(id, { readable: true, busy: mergeIntervals([...shown.busy, ...recent.value], range) });
  }
  return ok(out);
}
