import { type ApiCall, type ApiResult, ok } from '../api/types';
import { errors } from '../google-errors';
import { ALPHABETS } from '../random';
import type { World } from '../world';
import { isPrimaryOf, openCalendar } from './access';
import { attendeeEmails, inviteKeptOff, notify, sendUpdatesMode, syncGuestCopies } from './invites';
import { type NormalizedEvent, type Outcome, dropNulls, isValidEventId, normalizeEvent } from './model';
import { nextEtag, renderEvent } from './render';
import type { EventRecord, StoredCalendar } from './state';

/** `events.insert`, and the record-building it shares with seeding. */

/** Google-generated event ids: 26 base32hex characters. */
export function newEventId(world: World, calendar: StoredCalendar): string {
  for (;;) {
    const id = world.random.string(26, ALPHABETS.base32hex);
    if (!calendar.events.has(id)) return id;
  }
}

/** Checks a client-chosen id (format, then uniqueness on the calendar — deleted events keep theirs). */
export function checkNewEventId(calendar: StoredCalendar, id: string): ApiResult | undefined {
  if (!isValidEventId(id)) return errors.badRequest('Invalid resource id value.', 'calendar', 'invalid');
  if (calendar.events.has(id)) return errors.duplicate();
  return undefined;
}

/**
 * The organizer is the calendar (for a secondary calendar, with its name), the creator the person acting: a
 * writer adding to someone else's calendar creates an event that calendar organizes. When the organizer is on
 * the guest list without an answer of its own, it has accepted.
 */
export function buildRecord(
  world: World,
  calendar: StoredCalendar,
  creatorEmail: string,
  id: string,
  iCalUID: string | undefined,
  event: NormalizedEvent,
  rawAttendees: unknown,
  now: number,
): EventRecord {
  const organizer = isPrimaryOf(calendar, calendar.owner) ? { email: calendar.id } : { email: calendar.id, displayName: calendar.summary };
  markOrganizerAccepted(event, organizer.email, rawAttendees);
  const { etag, changeSeq } = nextEtag(world, now);
  return {
    id,
    iCalUID: iCalUID ?? `${id}@google.com`,
    calendarId: calendar.id,
    organizer,
    creator: { email: creatorEmail },
    fields: event.fields,
    timing: event.timing,
    created: Math.floor(now / 1000) * 1000, // Google's `created` has whole seconds; `updated` has milliseconds
    updated: now,
    sequence: event.sequence ?? 0,
    etag,
    changeSeq,
    exceptions: new Map(),
  };
}

/** The organizer listed among the attendees with no responseStatus of its own is `accepted`. */
export function markOrganizerAccepted(event: NormalizedEvent, organizerEmail: string, rawAttendees: unknown): void {
  const raw = Array.isArray(rawAttendees) ? (rawAttendees as Array<Record<string, unknown> | null>) : [];
  for (const a of event.fields.attendees ?? []) {
    if (a.email.toLowerCase() !== organizerEmail.toLowerCase()) continue;
    const given = raw.find((r) => typeof r?.email === 'string' && r.email.toLowerCase() === a.email.toLowerCase());
    if (!given?.responseStatus && a.responseStatus === 'needsAction') a.responseStatus = 'accepted';
  }
}

/**
 * Validates and stores a new event on `calendar`; shared by `events.insert` and seeding. `keptOff`: the guests
 * whose invitation setting kept it off their calendar (see invites.ts).
 */
export function createEvent(
  world: World,
  calendar: StoredCalendar,
  creatorEmail: string,
  body: Record<string, unknown>,
  now: number,
  supportsAttachments: boolean,
): Outcome<{ record: EventRecord; keptOff: string[] }> {
  let id: string;
  if (typeof body.id === 'string') {
    const problem = checkNewEventId(calendar, body.id);
    if (problem) return { ok: false, error: problem };
    id = body.id;
  } else {
    id = newEventId(world, calendar);
  }
  const event = normalizeEvent(body, { calendarTz: calendar.timeZone, supportsAttachments });
  if (!event.ok) return event;
  const iCalUID = typeof body.iCalUID === 'string' && body.iCalUID !== '' ? body.iCalUID : undefined;
  const record = buildRecord(world, calendar, creatorEmail, id, iCalUID, event.value, body.attendees, now);
  calendar.events.set(id, { record, dismissed: false, reminders: event.value.reminders ?? { useDefault: true }, changeSeq: record.changeSeq });
  const keptOff = syncGuestCopies(world, record);
  return { ok: true, value: { record, keptOff } };
}

export function insertEvent(call: ApiCall): ApiResult {
  const opened = openCalendar(call, call.params.calendarId!, 'writer');
  if (!opened.ok) return opened.error;
  const { calendar, role } = opened;
  const body = dropNulls(call.body ?? {}) as Record<string, unknown>;
  const created = createEvent(call.world, calendar, call.account.email, body, call.now, call.query.supportsAttachments === true);
  if (!created.ok) return created.error;
  const { record, keptOff } = created.value;
  const mode = sendUpdatesMode(call.query);
  notify(call.world, record, 'invitation', attendeeEmails(record), mode, call.now);
  inviteKeptOff(call.world, record, keptOff, mode, call.now);
  // Google is eventually consistent: its error guide answers a 404 with "Use exponential backoff"
  // (https://developers.google.com/calendar/api/guides/errors#404_not_found), and clients report reads right after
  // a create missing it (Netflix/dispatch#165, "Google APIs tend to have eventual consistency problems").
  const delay = call.world.calendar.settings.propagationDelayMs;
  if (delay > 0) record.visibleFrom = call.now + delay;
  const copy = calendar.events.get(record.id)!;
  return ok(renderEvent({ world: call.world, calendar, role, tz: calendar.timeZone, ...maxAttendees(call) }, copy));
}

export const maxAttendees = (call: ApiCall): { maxAttendees?: number } =>
  typeof call.query.maxAttendees === 'number' ? { maxAttendees: call.query.maxAttendees } : {};
