import { z } from 'zod';
import type { AgendaEvent, CalendarBusy, CalendarEvent, EventTime, Interval } from '../../core/calendar';
import { EVENT_STATUSES, RESPONSE_STATUSES, mergeIntervals } from '../../core/calendar';
import { type Result, ok } from '../../core/errors';
import { offsetDateTimeMs } from '../../tools/calendar/time';
import { unexpectedAnswer } from './answers';

/**
 * What the Google calendar adapter reads from Calendar v3's answers, checked before use (a changed or broken
 * answer becomes a clear EXTERNAL_API_ERROR, never a crash or a half-filled result), and their mapping to the
 * port's values. Google's bodies are never passed through: only the fields below leave the adapter.
 */

const googleTime = z.object({ dateTime: z.string().optional(), date: z.string().optional(), timeZone: z.string().optional() });

/** A guest as Google lists it: what the guest answered and the per-guest fields a rewritten guest list must keep. */
export const googleAttendeeSchema = z.object({
  email: z.string().min(1),
  responseStatus: z.enum(RESPONSE_STATUSES),
  self: z.boolean().optional(),
  displayName: z.string().optional(),
  optional: z.boolean().optional(),
  resource: z.boolean().optional(),
  comment: z.string().optional(),
  additionalGuests: z.number().int().min(0).optional(),
});
export type GoogleAttendee = z.infer<typeof googleAttendeeSchema>;

export const googleEventSchema = z.object({
  id: z.string().min(1),
  /** The event's version, for If-Match on a write that depends on what was read. */
  etag: z.string().min(1).optional(),
  htmlLink: z.string().min(1),
  status: z.enum(EVENT_STATUSES),
  summary: z.string().optional(),
  start: googleTime.optional(),
  end: googleTime.optional(),
  attendees: z.array(googleAttendeeSchema).optional(),
});
export type GoogleEvent = z.infer<typeof googleEventSchema>;

/** A Google event time as the port's: a timed event's instant, or an all-day event's date. */
function eventTime(t: z.infer<typeof googleTime> | undefined): EventTime | null {
  if (t?.dateTime) {
    const instant = offsetDateTimeMs(t.dateTime);
    return instant === undefined ? null : { instant };
  }
  return t?.date ? { date: t.date } : null;
}

export const toCalendarEvent = (event: GoogleEvent): CalendarEvent => ({
  id: event.id,
  htmlLink: event.htmlLink,
  status: event.status,
  title: event.summary ?? null,
  start: eventTime(event.start),
  end: eventTime(event.end),
  attendees: (event.attendees ?? []).map((a) => ({ email: a.email, responseStatus: a.responseStatus })),
});

// freeBusy: busy intervals per calendar, or the errors that say Google could not read it.
export const freeBusySchema = z.object({
  calendars: z.record(
    z.string(),
    z.object({
      busy: z.array(z.object({ start: z.string(), end: z.string() })).optional(),
      errors: z.array(z.object({ domain: z.string().optional(), reason: z.string().optional() })).optional(),
    }),
  ),
});

/**
 * Per requested id: its busy intervals (sorted, merged, clipped to the range), or why it is unreadable. A
 * calendar Google left out of its answer is unreadable too: absence of data is never taken as free time.
 */
export function busyByCalendar(data: z.infer<typeof freeBusySchema>, ids: readonly string[], range: Interval): Result<Map<string, CalendarBusy>> {
  const byLower = new Map(Object.entries(data.calendars).map(([k, v]) => [k.toLowerCase(), v] as const));
  const out = new Map<string, CalendarBusy>();
  for (const id of ids) {
    const entry = data.calendars[id] ?? byLower.get(id.toLowerCase());
    if (!entry) {
      out.set(id, { readable: false, reason: 'missing' });
      continue;
    }
    if (entry.errors && entry.errors.length > 0) {
      out.set(id, { readable: false, reason: entry.errors[0]?.reason ?? 'unknown' });
      continue;
    }
    const raw: Interval[] = [];
    for (const b of entry.busy ?? []) {
      const start = offsetDateTimeMs(b.start);
      const end = offsetDateTimeMs(b.end);
      if (start === undefined || end === undefined) return { ok: false, error: unexpectedAnswer('calendar.freebusy.query') };
      raw.push({ start, end });
    }
    out.set(id, { readable: true, busy: mergeIntervals(raw, range) });
  }
  return ok(out);
}

export const listedEventSchema = googleEventSchema.pick({ id: true, status: true, start: true, end: true }).extend({
  transparency: z.string().optional(),
  attendees: z.array(z.object({ self: z.boolean().optional(), responseStatus: z.string().optional() })).optional(),
});
export type ListedEvent = z.infer<typeof listedEventSchema>;

const isResponse = (v: string | undefined): v is AgendaEvent['selfResponse'] & string => (RESPONSE_STATUSES as readonly (string | undefined)[]).includes(v);

/** An event of events.list as the port's agenda entry: free when transparent, the account's own answer from its `self` entry. */
export function toAgendaEvent(event: ListedEvent): AgendaEvent {
  const own = event.attendees?.find((a) => a.self === true)?.responseStatus;
  return {
    status: event.status,
    start: eventTime(event.start),
    end: eventTime(event.end),
    free: event.transparency === 'transparent',
    selfResponse: isResponse(own) ? own : null,
  };
}
