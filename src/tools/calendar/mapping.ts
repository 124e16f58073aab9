import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import { unexpectedAnswer } from '../google-answer';
import { offsetDateTimeMs } from './time';

/**
 * What the calendar tools read from Google's answers, checked before use (a changed or broken answer becomes a
 * clear EXTERNAL_API_ERROR, never a crash or a half-filled result), and their mapping to the contract's shapes.
 * Google's bodies are never passed through: only the fields below leave the Hub.
 */

export const RESPONSE_STATUSES = ['needsAction', 'declined', 'tentative', 'accepted'] as const;
export const EVENT_STATUSES = ['confirmed', 'tentative', 'cancelled'] as const;

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

export const eventResultSchema = z.object({
  event_id: z.string(),
  html_link: z.string(),
  status: z.enum(EVENT_STATUSES),
  attendees: z.array(z.object({ email: z.string(), response_status: z.enum(RESPONSE_STATUSES) })),
});
export type EventResult = z.infer<typeof eventResultSchema>;

export const toEventResult = (event: GoogleEvent): EventResult => ({
  event_id: event.id,
  html_link: event.htmlLink,
  status: event.status,
  attendees: (event.attendees ?? []).map((a) => ({ email: a.email, response_status: a.responseStatus })),
});

/** The instant of a Google event time (dateTime only; all-day `date`s are resolved by the caller in its zone). */
export const eventTimeMs = (t: z.infer<typeof googleTime> | undefined): number | undefined => (t?.dateTime ? offsetDateTimeMs(t.dateTime) : undefined);

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

export interface Interval {
  start: number;
  end: number;
}

export type CalendarBusy = { readable: true; busy: Interval[] } | { readable: false; reason: string };

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
