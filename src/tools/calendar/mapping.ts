import { z } from 'zod';
import { type CalendarEvent, EVENT_STATUSES, type EventTime, type Interval, RESPONSE_STATUSES } from '../../core/calendar';

/**
 * The calendar tools' results in the contract's shapes, from the calendar port's values, and the interval
 * arithmetic the tools (and adapters) share.
 */

export { EVENT_STATUSES, RESPONSE_STATUSES };
export type { CalendarBusy, Interval } from '../../core/calendar';
/** The port's busy-time rule (core/calendar.ts), where the tools have always found it. */
export { mergeIntervals } from '../../core/calendar';

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
