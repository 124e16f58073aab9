import { DateTime } from 'luxon';
import { z } from 'zod';
import type { AgendaEvent, CalendarEvent, EventStatus, EventTime, ResponseStatus } from '../../core/calendar';
import { ianaZoneOf, isUtcZone } from './time-zones';

/**
 * What the adapter reads from Graph's events (property names from the v1.0 event resource) and how each becomes
 * the port's neutral values. Graph's bodies are never passed on: only the fields below leave the adapter.
 */

const dateTimeTimeZone = z.object({ dateTime: z.string().min(1).max(64), timeZone: z.string().max(200).nullish() });
const responseStatus = z.object({ response: z.string().max(64).nullish() }).nullish();

export const graphAttendeeSchema = z.object({
  type: z.string().max(32).nullish(),
  status: responseStatus,
  emailAddress: z.object({ address: z.string().min(1).max(320), name: z.string().max(512).nullish() }),
});
export type GraphAttendee = z.infer<typeof graphAttendeeSchema>;

/** The properties asked for ($select) wherever an event is read whole. */
export const EVENT_SELECT = 'id,subject,start,end,isAllDay,isCancelled,showAs,isOrganizer,responseStatus,attendees,webLink,createdDateTime';

export const graphEventSchema = z.object({
  /** The event's version (its changeKey), for If-Match on a write that depends on what was read. */
  '@odata.etag': z.string().min(1).max(512).optional(),
  id: z.string().min(1).max(1024),
  webLink: z.string().min(1).max(4096),
  subject: z.string().nullish(),
  start: dateTimeTimeZone,
  end: dateTimeTimeZone,
  isAllDay: z.boolean().nullish(),
  isCancelled: z.boolean().nullish(),
  showAs: z.string().max(64).nullish(),
  isOrganizer: z.boolean().nullish(),
  responseStatus,
  attendees: z.array(graphAttendeeSchema).max(10_000).nullish(),
  createdDateTime: z.string().max(64).nullish(),
});
export type GraphEvent = z.infer<typeof graphEventSchema>;

/** What calendarView rows need for the agenda and for busy time (no link, no attendees); the id tells the adapter's own recent creates apart. */
export const agendaRowSchema = graphEventSchema.pick({
  id: true,
  start: true,
  end: true,
  isAllDay: true,
  isCancelled: true,
  showAs: true,
  isOrganizer: true,
  responseStatus: true,
});
export const AGENDA_SELECT = 'id,start,end,isAllDay,isCancelled,showAs,isOrganizer,responseStatus';

/**
 * An attendee's answer in the port's words: none/notResponded → needsAction, tentativelyAccepted → tentative,
 * organizer → accepted (the organizer attends). A value Graph adds later reads as not answered.
 */
export function responseOf(response: string | null | undefined): ResponseStatus {
  switch (response) {
    case 'accepted':
    case 'organizer':
      return 'accepted';
    case 'declined':
      return 'declined';
    case 'tentativelyAccepted':
      return 'tentative';
    default:
      return 'needsAction';
  }
}

/** Cancelled (the organizer cancelled the meeting), tentative (shown as tentative), else confirmed. */
export const statusOf = (e: Pick<GraphEvent, 'isCancelled' | 'showAs'>): EventStatus =>
  e.isCancelled === true ? 'cancelled' : e.showAs === 'tentative' ? 'tentative' : 'confirmed';

const WALL_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(\.\d+)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** The instant of a Graph dateTimeTimeZone: a wall time in its zone (UTC when unnamed), seven fractional digits allowed. */
export function instantOf(t: z.infer<typeof dateTimeTimeZone>): number | undefined {
  if (WITH_OFFSET.test(t.dateTime)) {
    const ms = Date.parse(t.dateTime);
    return Number.isNaN(ms) ? undefined : ms;
  }
  const m = WALL_TIME.exec(t.dateTime);
  if (!m) return undefined;
  const zone = t.timeZone ? ianaZoneOf(t.timeZone) : 'UTC';
  if (zone === undefined) return undefined;
  const wall = `${m[1]}${(m[2] ?? '').slice(0, 4)}`;
  // Graph answers in UTC unless asked for another zone (Prefer: outlook.timezone): read those without a zone
  // lookup, which costs an Intl call per time.
  if (isUtcZone(zone)) {
    const ms = Date.parse(`${wall}Z`);
    // Date.parse rolls an impossible date over (February 30th, 24:00); luxon refuses it, and so does this path.
    return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 16) !== wall.slice(0, 16) ? undefined : ms;
  }
  const parsed = DateTime.fromISO(wall, { zone });
  return parsed.isValid ? parsed.toMillis() : undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** An all-day event's local date (Graph writes its midnight as a wall time), or a timed event's instant. */
export function eventTimeOf(t: z.infer<typeof dateTimeTimeZone>, allDay: boolean): EventTime | undefined {
  if (allDay) {
    const m = DATE.exec(t.dateTime);
    if (!m) return undefined;
    const d = DateTime.fromObject({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, { zone: 'UTC' });
    return d.isValid ? { date: `${m[1]}-${m[2]}-${m[3]}` } : undefined;
  }
  const instant = instantOf(t);
  return instant === undefined ? undefined : { instant };
}

/** The port's event; undefined when Graph's times cannot be read (the caller reports an unexpected answer). */
export function toCalendarEvent(e: GraphEvent): CalendarEvent | undefined {
  const allDay = e.isAllDay === true;
  const start = eventTimeOf(e.start, allDay);
  const end = eventTimeOf(e.end, allDay);
  if (!start || !end) return undefined;
  return {
    id: e.id,
    htmlLink: e.webLink,
    status: statusOf(e),
    title: e.subject ?? null,
    start,
    end,
    attendees: (e.attendees ?? []).map((a) => ({ email: a.emailAddress.address, responseStatus: responseOf(a.status?.response) })),
  };
}

/** An agenda row: showAs free → free; the account's own answer unless it organises the event. */
export function toAgendaEvent(e: z.infer<typeof agendaRowSchema>): AgendaEvent | undefined {
  const allDay = e.isAllDay === true;
  const start = eventTimeOf(e.start, allDay);
  const end = eventTimeOf(e.end, allDay);
  if (!start || !end) return undefined;
  return {
    status: statusOf(e),
    start,
    end,
    free: e.showAs === 'free',
    selfResponse: e.isOrganizer === true || !e.responseStatus?.response ? null : responseOf(e.responseStatus.response),
  };
}
