import { type ApiCall, type ApiResult, ok } from '../api/types';
import { errors, googleError } from '../google-errors';
import type { World } from '../world';
import { calendarKey, findCalendar, resolveCalendarId, roleOf } from './access';
import { instancesOf, isRecurring } from './occurrences';
import { timingBounds } from './recurrence';
import { emptyTimeRange } from './model';
import { copyStatus, isOrganizerCopy } from './render';
import type { StoredCalendar } from './state';
import { formatInZone, isValidTimeZone, parseInstant } from './time';

/**
 * `freebusy.query`. Busy time is what blocks the calendar: events neither cancelled nor transparent, and not
 * declined by the calendar's owner when it is a guest. All-day events block their days in the calendar's time
 * zone. Intervals are clipped to the window and merged where they overlap or touch. A calendar the caller may
 * not see is reported inside the 200, as Google does, with a notFound error and no busy time.
 */

export interface Interval {
  start: number;
  end: number;
}

/** Clips to [from, to), drops empty intervals, sorts, and merges overlapping or adjacent ones. */
export function mergeIntervals(intervals: readonly Interval[], from: number, to: number): Interval[] {
  const clipped = intervals
    .map((i) => ({ start: Math.max(i.start, from), end: Math.min(i.end, to) }))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Interval[] = [];
  for (const i of clipped) {
    const last = out.at(-1);
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

export function busyIntervals(world: World, calendar: StoredCalendar, from: number, to: number): Interval[] {
  const raw: Interval[] = [];
  const self = calendarKey(calendar.id);
  const declinedBySelf = (attendees: { email: string; responseStatus: string }[] | undefined) =>
    attendees?.some((a) => a.email.toLowerCase() === self && a.responseStatus === 'declined') ?? false;
  for (const copy of calendar.events.values()) {
    const { record } = copy;
    if (copyStatus(copy, calendar) === 'cancelled') continue;
    const guest = !isOrganizerCopy(record, calendar);
    if (isRecurring(record)) {
      for (const i of instancesOf(world, record, { from, to })) {
        if (i.status === 'cancelled' || i.fields.transparency === 'transparent' || (guest && declinedBySelf(i.fields.attendees))) continue;
        raw.push(timingBounds(i.timing, calendar.timeZone));
      }
    } else if (record.fields.transparency !== 'transparent' && !(guest && declinedBySelf(record.fields.attendees))) {
      raw.push(timingBounds(record.timing, calendar.timeZone));
    }
  }
  return mergeIntervals(raw, from, to);
}

const MAX_CALENDARS = 50;

/**
 * The longest window freeBusy answers: 90 days of 24 hours. Google refuses longer ones with 400 "The requested
 * time range is too long." (reason `timeRangeTooLong`, as public client code records it): reported at 90 days
 * (https://github.com/calcom/cal.diy/pull/11962, "The Google /freeBusy endpoint has a maximum time span of 90
 * days") and met when a 90-day window crossed the autumn DST change and so lasted an hour longer
 * (https://github.com/calcom/cal.diy/pull/11696). The reports quote reason and message only; the `calendar`
 * domain follows its sibling timeRangeEmpty (model.ts).
 */
export const MAX_FREEBUSY_SPAN_MS = 90 * 86_400_000;

export function queryFreeBusy(call: ApiCall): ApiResult {
  const body = (call.body ?? {}) as { timeMin?: string; timeMax?: string; timeZone?: string; items?: Array<{ id?: string }>; calendarExpansionMax?: number };
  if (!body.timeMin) return errors.badRequest('Missing timeMin parameter.', 'calendar', 'required');
  if (!body.timeMax) return errors.badRequest('Missing timeMax parameter.', 'calendar', 'required');
  const from = parseInstant(body.timeMin);
  const to = parseInstant(body.timeMax);
  if (from === undefined || to === undefined) return errors.badRequest('Bad Request', 'calendar', 'badRequest');
  if (to <= from) return emptyTimeRange();
  if (to - from > MAX_FREEBUSY_SPAN_MS)
    return googleError(400, 'The requested time range is too long.', { domain: 'calendar', reason: 'timeRangeTooLong' }, { family: 'calendar' });
  const tz = body.timeZone || 'UTC';
  if (!isValidTimeZone(tz)) return errors.badRequest('Invalid time zone definition.', 'calendar', 'invalid');
  const items = body.items ?? [];
  if (items.length > Math.min(body.calendarExpansionMax ?? MAX_CALENDARS, MAX_CALENDARS)) {
    return errors.badRequest('Too many calendars requested.', 'calendar', 'tooManyCalendarsRequested');
  }

  const calendars: Record<string, unknown> = {};
  for (const item of items) {
    const id = item.id ?? '';
    const calendar = findCalendar(call.world, resolveCalendarId(call.account, id));
    if (!calendar || !roleOf(calendar, call.account.email)) {
      calendars[id] = { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
      continue;
    }
    const busy = busyIntervals(call.world, calendar, from, to);
    calendars[id] = { busy: busy.map((b) => ({ start: formatInZone(b.start, tz), end: formatInZone(b.end, tz) })) };
  }
  // The window is echoed with milliseconds (`…T00:00:00.000Z`); busy times are whole seconds.
  return ok({ kind: 'calendar#freeBusy', timeMin: new Date(from).toISOString(), timeMax: new Date(to).toISOString(), calendars });
}
