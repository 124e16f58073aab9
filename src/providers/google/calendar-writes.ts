import { randomBytes } from 'node:crypto';
import type { CalendarEvent, CreateOptions, CreatedEvent, EventChanges, EventDraft, WriteOptions } from '../../core/calendar';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import { base32hex } from '../../tools/calendar/event-id';
import { parseGoogle } from './answers';
import { type GoogleEvent, googleEventSchema, toCalendarEvent } from './calendar-answers';
import type { CalendarRequest, GoogleCalendarDeps } from './calendar-client';
import { type GuestEntry, rewriteGuestList } from './calendar-guest-list';
import { eventNotFound } from './calendar-not-found';
import { readEvent } from './calendar-reads';
import { createdRecently, rememberCreated, untilVisible } from './read-after-create';

/** Calendar v3 writes of the Google calendar adapter: create once per key, patch keeping replies, delete. */

interface GoogleEventBody {
  summary?: string;
  start?: { dateTime: string };
  end?: { dateTime: string };
  description?: string;
  location?: string;
  attendees?: { email: string }[];
}

/** The port's event fields in Google's event shape (title → summary, attendees → [{email}], times as dateTime with their offset). */
function toGoogleEventBody(fields: EventChanges): GoogleEventBody {
  const body: GoogleEventBody = {};
  if (fields.title !== undefined) body.summary = fields.title;
  if (fields.start !== undefined) body.start = { dateTime: fields.start };
  if (fields.end !== undefined) body.end = { dateTime: fields.end };
  if (fields.description !== undefined) body.description = fields.description;
  if (fields.location !== undefined) body.location = fields.location;
  if (fields.attendees !== undefined) body.attendees = fields.attendees.map((email) => ({ email }));
  return body;
}

/** Google's sendUpdates: the port's default (undefined) is to email the guests. */
const sendUpdatesOf = (options: WriteOptions): 'all' | 'none' => (options.notify === false ? 'none' : 'all');

/**
 * Creates the event under a client-chosen id: the dedupKey (32 base32hex characters, as Google requires) when the
 * call carries a request_id. Without one the call still names its event — a random id (160 bits) — so the Hub's
 * own retry after a 5xx or a timeout that Google had in fact applied meets 409 `duplicate` and reads the event
 * back instead of creating a second one.
 */
export async function createEvent(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  calendarId: string,
  draft: EventDraft,
  options: CreateOptions,
): Promise<Result<CreatedEvent>> {
  const id = options.dedupKey ?? base32hex(randomBytes(20));
  const body = { ...toGoogleEventBody(draft), id };
  // With a client-chosen id a repeat cannot duplicate the event (Google answers 409), so retrying is safe.
  const inserted = await request('calendar.events.insert', true, (api, o) =>
    api.events.insert({ calendarId, sendUpdates: sendUpdatesOf(options), requestBody: body }, o),
  );
  if (!inserted.ok) {
    const { error } = inserted;
    if (error.code !== 'CONFLICT' || error.details?.reason !== 'duplicate') return inserted;
    // Google's 409 proves the event exists, so a 404 from the read is its lag, not absence.
    const got = await untilVisible(deps, true, () => readEvent(deps, request, calendarId, id));
    if (!got.ok) return got.error.code === 'RESOURCE_NOT_FOUND' ? fail(eventNotFound(got.error, id, calendarId)) : got;
    await rememberCreated(deps, calendarId, id);
    return ok({ event: toCalendarEvent(got.value), replayed: true });
  }
  const event = parseGoogle(googleEventSchema, inserted.value.data, 'calendar.events.insert', deps);
  if (!event.ok) return event;
  await rememberCreated(deps, calendarId, event.value.id);
  return ok({ event: toCalendarEvent(event.value), replayed: false });
}

/** Read → patch rounds when the event keeps changing between the two (Google's 412 to If-Match). */
const GUEST_LIST_TRIES = 3;

export async function updateEvent(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  calendarId: string,
  eventId: string,
  changes: EventChanges,
  options: WriteOptions,
): Promise<Result<CalendarEvent>> {
  const justCreated = await createdRecently(deps, calendarId, eventId);
  const patch = (body: PatchBody, etag?: string) => patchEvent(deps, request, calendarId, eventId, body, options, etag);
  const patched =
    changes.attendees === undefined
      ? await untilVisible(deps, justCreated, () => patch(toGoogleEventBody(changes)))
      : await patchGuestList(deps, request, calendarId, eventId, changes, changes.attendees, justCreated, patch);
  return patched.ok ? ok(toCalendarEvent(patched.value)) : fail(inCallerTerms(patched.error, eventId, calendarId));
}

type PatchBody = GoogleEventBody | (Omit<GoogleEventBody, 'attendees'> & { attendees: GuestEntry[] });

/**
 * A new guest list that keeps the replies: read the event, write the list rebuilt from what Google holds
 * (calendar-guest-list.ts) only if the event is still the version read (If-Match, Google's "conditional
 * modification", https://developers.google.com/calendar/api/guides/version-resources). If someone answered or
 * edited in between, Google answers 412 and the list is read and rebuilt again; a change that keeps racing is CONFLICT.
 */
async function patchGuestList(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  calendarId: string,
  eventId: string,
  changes: EventChanges,
  emails: readonly string[],
  justCreated: boolean,
  patch: (body: PatchBody, etag?: string) => Promise<Result<GoogleEvent>>,
): Promise<Result<GoogleEvent>> {
  for (let round = 1; round <= GUEST_LIST_TRIES; round++) {
    const current = await untilVisible(deps, justCreated, () => readEvent(deps, request, calendarId, eventId));
    if (!current.ok) return current;
    const body = { ...toGoogleEventBody(changes), attendees: rewriteGuestList(current.value.attendees ?? [], emails) };
    const patched = await untilVisible(deps, justCreated, () => patch(body, current.value.etag));
    if (patched.ok || !changedMeanwhile(patched.error)) return patched;
  }
  return fail(
    hubError('CONFLICT', 'The event kept changing while its guest list was being updated; try again', {
      retryable: true,
      details: { reason: 'concurrent_change', event_id: eventId },
    }),
  );
}

const changedMeanwhile = (error: HubError) => error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 412;

async function patchEvent(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  calendarId: string,
  eventId: string,
  body: PatchBody,
  options: WriteOptions,
  etag?: string,
): Promise<Result<GoogleEvent>> {
  // The same patch sent again ends in the same state (with If-Match: a 412, and a fresh read): safe to retry.
  const patched = await request('calendar.events.patch', true, (api, o) =>
    api.events.patch(
      { calendarId, eventId, sendUpdates: sendUpdatesOf(options), requestBody: body },
      { ...o, ...(etag ? { headers: { 'If-Match': etag } } : {}) },
    ),
  );
  return patched.ok ? parseGoogle(googleEventSchema, patched.value.data, 'calendar.events.patch', deps) : patched;
}

function inCallerTerms(error: HubError, eventId: string, calendarId: string): HubError {
  if (error.code === 'RESOURCE_NOT_FOUND') return eventNotFound(error, eventId, calendarId);
  // Only one of start/end given, and with the other one as stored the event would end before it starts.
  if (error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 400 && error.details.reason === 'timeRangeEmpty') {
    return hubError('VALIDATION_ERROR', 'With this change the event would end before it starts', {
      details: { reason: 'time_range_empty', upstream_status: 400 },
    });
  }
  return error;
}

export async function deleteEvent(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  calendarId: string,
  eventId: string,
  options: WriteOptions,
): Promise<Result<{ alreadyDeleted: boolean }>> {
  // Deleting twice ends in the same state (Google answers 410 the second time): safe to retry. Right after this
  // Hub created the event, Google's 404 may be its lag (read-after-create.ts).
  const deleted = await untilVisible(deps, await createdRecently(deps, calendarId, eventId), () =>
    request('calendar.events.delete', true, (api, o) => api.events.delete({ calendarId, eventId, sendUpdates: sendUpdatesOf(options) }, o)),
  );
  if (deleted.ok) return ok({ alreadyDeleted: false });
  const { error } = deleted;
  if (error.code !== 'RESOURCE_NOT_FOUND') return deleted;
  // Google keeps a deleted event's id and answers 410 Gone for it; 404 means it never existed (here).
  if (error.details?.upstream_status === 410) return ok({ alreadyDeleted: true });
  return fail(eventNotFound(error, eventId, calendarId));
}
