import type { World } from '../world';
import { calendarKey } from './access';
import { type Instance, eventTimeZone } from './occurrences';
import type { AccessRole, EventCopy, EventRecord, EventStatus, StoredCalendar, Timing } from './state';
import { formatInZone, formatYmd } from './time';

/**
 * Events as Google writes them: field order, omitted defaults, RFC 3339 times in the zone the caller asked for
 * (else the calendar's), `self` flags relative to the calendar the copy sits on (Discovery: "Whether this entry
 * represents the calendar on which this copy of the event appears"), and Google's etag and htmlLink formats.
 */

/** Next etag: Google's event etags are quoted decimal microsecond-ish stamps (`"3381…000"`). */
export function nextEtag(world: World, now: number): { etag: string; changeSeq: number } {
  const changeSeq = ++world.calendar.changeSeq;
  return { etag: `"${now * 2000 + (changeSeq % 2000)}"`, changeSeq };
}

/** Marks the record changed: new etag, `updated`, change sequence. */
export function touch(world: World, record: EventRecord, now: number): void {
  const { etag, changeSeq } = nextEtag(world, now);
  record.etag = etag;
  record.changeSeq = changeSeq;
  record.updated = now;
}

/**
 * `https://www.google.com/calendar/event?eid=…`: base64 of "<eventId> <calendar>" without padding, where Google
 * abbreviates gmail.com calendars to `@m` and secondary (group) calendars to `@g`.
 */
export function htmlLink(eventId: string, calendarId: string): string {
  const short = calendarId.replace(/@gmail\.com$/i, '@m').replace(/@group\.calendar\.google\.com$/i, '@g');
  // URL-safe alphabet: the text is almost always plain ASCII, for which it equals standard base64.
  const eid = Buffer.from(`${eventId} ${short}`, 'utf8').toString('base64url');
  return `https://www.google.com/calendar/event?eid=${eid}`;
}

/** ISO 8601 with milliseconds, as Google writes `created`/`updated`. */
export const isoMs = (ms: number) => new Date(ms).toISOString();

export const isOrganizerCopy = (record: EventRecord, calendar: StoredCalendar) => calendarKey(record.calendarId) === calendarKey(calendar.id);

export const isInvited = (record: EventRecord, calendar: StoredCalendar) =>
  record.fields.attendees?.some((a) => a.email.toLowerCase() === calendarKey(calendar.id)) ?? false;

/**
 * The status a calendar's copy shows: an invitee's copy is cancelled once they removed it or were taken off the
 * guest list, the organizer's once the event was deleted.
 */
export function copyStatus(copy: EventCopy, calendar: StoredCalendar): EventStatus {
  const { record } = copy;
  if (record.fields.status === 'cancelled' || copy.dismissed) return 'cancelled';
  if (!isOrganizerCopy(record, calendar) && !isInvited(record, calendar)) return 'cancelled';
  return record.fields.status;
}

export interface RenderContext {
  world: World;
  calendar: StoredCalendar;
  role: AccessRole;
  /** Zone that dateTime values are written in. */
  tz: string;
  maxAttendees?: number;
}

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function renderTime(timing: Timing, side: 'start' | 'end', timeZone: string | undefined, tz: string) {
  if (timing.allDay) return compact({ date: formatYmd(side === 'start' ? timing.startDate : timing.endDate), timeZone });
  return compact({ dateTime: formatInZone(side === 'start' ? timing.startMs : timing.endMs, tz), timeZone });
}

/** A copy of an event (or one instance of it) as the calendar `ctx.calendar` shows it. */
export function renderEvent(ctx: RenderContext, copy: EventCopy, instance?: Instance): Record<string, unknown> {
  const { record } = copy;
  const calKey = calendarKey(ctx.calendar.id);
  const fields = instance?.fields ?? record.fields;
  const timing = instance?.timing ?? record.timing;
  const id = instance?.id ?? record.id;
  const seriesStatus = copyStatus(copy, ctx.calendar);
  const status = seriesStatus === 'cancelled' ? 'cancelled' : (instance?.status ?? seriesStatus);
  const etag = instance?.exception?.etag ?? record.etag;
  const start = renderTime(timing, 'start', fields.start.timeZone, ctx.tz);
  const end = renderTime(timing, 'end', fields.end.timeZone, ctx.tz);
  const originalStartTime = instance && renderTime(instance.originalTiming, 'start', record.fields.start.timeZone ?? eventTimeZone(ctx.world, record), ctx.tz);

  // A free/busy reader sees when, not what.
  if (ctx.role === 'freeBusyReader') {
    return compact({ kind: 'calendar#event', etag, id, status, start, end, recurringEventId: instance?.recurringEventId, originalStartTime });
  }

  const self = (email: string) => (email.toLowerCase() === calKey ? true : undefined);
  let attendees = fields.attendees?.map((a) =>
    compact({
      email: a.email,
      displayName: a.displayName,
      organizer: a.email.toLowerCase() === record.organizer.email.toLowerCase() ? true : undefined,
      self: self(a.email),
      resource: a.resource,
      optional: a.optional,
      responseStatus: a.responseStatus,
      comment: a.comment,
      additionalGuests: a.additionalGuests,
    }),
  );
  let attendeesOmitted: true | undefined;
  if (attendees && ctx.maxAttendees !== undefined && attendees.length > ctx.maxAttendees) {
    // Google keeps the caller's own entry and drops the rest past the limit.
    const own = attendees.filter((a) => a.self === true);
    attendees = [...own, ...attendees.filter((a) => a.self !== true)].slice(0, Math.max(ctx.maxAttendees, own.length));
    attendeesOmitted = true;
  }
  return compact({
    kind: 'calendar#event',
    etag,
    id,
    status,
    htmlLink: htmlLink(id, ctx.calendar.id),
    created: isoMs(record.created),
    updated: isoMs(Math.max(record.updated, instance?.exception?.updated ?? 0)),
    summary: fields.summary,
    description: fields.description,
    location: fields.location,
    colorId: fields.colorId,
    creator: compact({ email: record.creator.email, self: self(record.creator.email) }),
    organizer: compact({ email: record.organizer.email, displayName: record.organizer.displayName, self: self(record.organizer.email) }),
    start,
    end,
    endTimeUnspecified: fields.endTimeUnspecified,
    recurrence: instance ? undefined : fields.recurrence,
    recurringEventId: instance?.recurringEventId,
    originalStartTime,
    transparency: fields.transparency,
    visibility: fields.visibility,
    iCalUID: record.iCalUID,
    sequence: instance?.exception?.sequence ?? record.sequence,
    attendees,
    attendeesOmitted,
    extendedProperties: fields.extendedProperties,
    anyoneCanAddSelf: fields.anyoneCanAddSelf,
    guestsCanInviteOthers: fields.guestsCanInviteOthers,
    guestsCanModify: fields.guestsCanModify,
    guestsCanSeeOtherGuests: fields.guestsCanSeeOtherGuests,
    privateCopy: fields.privateCopy,
    reminders: copy.reminders.overrides ? { useDefault: false, overrides: copy.reminders.overrides } : { useDefault: copy.reminders.useDefault },
    source: fields.source,
    attachments: fields.attachments,
  });
}

/** The minimal form of a cancelled occurrence of a series, as `events.list` reports it without singleEvents. */
export function renderCancelledInstance(ctx: RenderContext, copy: EventCopy, instance: Instance): Record<string, unknown> {
  const tz = copy.record.fields.start.timeZone ?? eventTimeZone(ctx.world, copy.record);
  return {
    kind: 'calendar#event',
    etag: instance.exception?.etag ?? copy.record.etag,
    id: instance.id,
    status: 'cancelled',
    recurringEventId: instance.recurringEventId,
    originalStartTime: renderTime(instance.originalTiming, 'start', tz, ctx.tz),
  };
}
