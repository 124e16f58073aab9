import { z } from 'zod';
import { type CalendarEvent, EVENT_STATUSES, type EventTime, type Interval, RESPONSE_STATUSES } from '../../core/calendar';

/**
 * The calendar tools' results in the contract's shapes, from the calendar port's values, and the interval
 * arithmetic the tools (and adapters) share.
 */

export { EVENT_STATUSES, RESPONSE_STATUSES };
export type { CalendarBusy, Interval } from '../../core/calendar';

export const eventResultSchema = z.object({
  event_id: z.string(),
  html_link: z.string(),
  status: z.enum(EVENT_STATUSES),
  attendees: z.array(z.object({ email: z.string(), response_status: z.enum(RESPONSE_STATUSES) })),
});
export type EventResult = z.infer<typeof eventResultSchema>;

export const toEventResult = (event: CalendarEvent): EventResult => ({
  event_id: event.id,
  html_link: event.htmlLink,
  status: event.status,
  attendees: event.attendees.map((a) => ({ email: a.email, response_status: a.responseStatus })),
});

/** The instant of a timed event's time (all-day dates are resolved by the caller in its zone). */
export const eventTimeMs = (t: EventTime | null): number | undefined => (t !== null && 'instant' in t ? t.instant : undefined);

/** Clips to the range, drops empty intervals, sorts, and merges overlapping or touching ones. */
export function mergeIntervals(intervals: readonly Interval[], range: Interval): Interval[] {
  const clipped = intervals
    .map((i) => ({ start: Math.max(i.start, range.start), end: Math.min(i.end, range.end) }))
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

/** `a` minus `b` (both sorted and merged). */
export function subtractIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const i of a) {
    let cursor = i.start;
    while (j < b.length && b[j]!.end <= cursor) j++;
    for (let k = j; k < b.length && b[k]!.start < i.end; k++) {
      if (b[k]!.start > cursor) out.push({ start: cursor, end: b[k]!.start });
      cursor = Math.max(cursor, b[k]!.end);
    }
    if (cursor < i.end) out.push({ start: cursor, end: i.end });
  }
  return out;
}
