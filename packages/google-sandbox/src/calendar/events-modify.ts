import { type ApiCall, type ApiResult, ok } from '../api/types';
import { errors } from '../google-errors';
import { calendarKey, openCalendar } from './access';
import { maxAttendees, markOrganizerAccepted } from './events-insert';
import { attendeeEmails, inviteKeptOff, notify, sendUpdatesMode, syncGuestCopies } from './invites';
import { dropNulls, fieldsAsInput, mergePatch, normalizeEvent } from './model';
import { instanceFields, instanceOf, locateEvent } from './occurrences';
import { failedPrecondition } from './preconditions';
import { isOrganizerCopy, nextEtag, renderEvent, touch } from './render';
import type { EventFields, EventRecord, StoredAttendee, Timing } from './state';

/**
 * `events.patch` (merge: objects field by field, arrays replaced, null clears) and `events.update` (full
 * replace). The organizer's side edits the shared record and mails guests as `sendUpdates` says. A guest, on its
 * own copy, may only answer (its responseStatus, comment, additional guests) and set its reminders, unless the
 * organizer let guests modify the event; anything else is Google's 403 forbiddenForNonOrganizer.
 * Editing an instance id (`<id>_<start>`) edits that occurrence only, as an exception to the series.
 * The organizer's `attendees` replaces the list: an entry without responseStatus is needsAction again, and with
 * sendUpdates=all such a guest who had answered is invited again. `If-Match` makes the write conditional.
 */

/** Key-sorted JSON, so two normalized values compare equal whatever order their keys were written in. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Fields as the organizer owns them: times by instant (a guest echoes them in its own zone), its own entry aside. */
function sharedView(fields: EventFields, timing: Timing, self: string): string {
  const attendees = (fields.attendees ?? []).map((a) =>
    a.email.toLowerCase() === self
      ? { self: true }
      : { email: a.email.toLowerCase(), optional: a.optional, displayName: a.displayName, responseStatus: a.responseStatus },
  );
  const side = (s: EventFields['start']) => ({ date: s.date, timeZone: s.timeZone });
  return canonical({ ...fields, start: side(fields.start), end: side(fields.end), attendees, timing });
}

/** The guest's answer copied from what it wrote into the organizer's fields. */
function withOwnReply(base: EventFields, written: EventFields, self: string): EventFields {
  const mine = written.attendees?.find((a) => a.email.toLowerCase() === self);
  if (!mine) return base;
  const attendees = (base.attendees ?? []).map((a): StoredAttendee => {
    if (a.email.toLowerCase() !== self) return a;
    const { comment: _c, additionalGuests: _g, ...rest } = a;
    return {
      ...rest,
      responseStatus: mine.responseStatus,
      ...(mine.comment ? { comment: mine.comment } : {}),
      ...(mine.additionalGuests ? { additionalGuests: mine.additionalGuests } : {}),
    };
  });
  return { ...base, attendees };
}

export function modifyEvent(call: ApiCall, mode: 'patch' | 'update'): ApiResult {
  const opened = openCalendar(call, call.params.calendarId!, 'writer');
  if (!opened.ok) return opened.error;
  const { calendar, role } = opened;
  const { world, now } = call;
  const located = locateEvent(world, calendar, call.params.eventId!);
  if (!located) return errors.notFound('calendar');
  const { copy, instance } = located;
  const record = copy.record;
  const stale = failedPrecondition(call, instance?.exception?.etag ?? record.etag);
  if (stale) return stale;
  const baseFields = instance ? instanceFields(world, instance, record) : record.fields;
  const baseTiming = instance?.timing ?? record.timing;
  const organizerSide = isOrganizerCopy(record, calendar);

  const body = (call.body ?? {}) as Record<string, unknown>;
  const input = (mode === 'patch' ? mergePatch({ ...fieldsAsInput(baseFields), reminders: copy.reminders }, body) : dropNulls(body)) as Record<string, unknown>;
  if (instance) delete input.recurrence; // an occurrence has no recurrence of its own
  const normalized = normalizeEvent(input, {
    calendarTz: calendar.timeZone,
    supportsAttachments: call.query.supportsAttachments === true,
    keepReplies: !organizerSide,
    ...(baseFields.attendees ? { previousAttendees: baseFields.attendees } : {}),
    ...(baseFields.attachments ? { previousAttachments: baseFields.attachments } : {}),
  });
  if (!normalized.ok) return normalized.error;
  const event = normalized.value;
  const currentSequence = instance?.exception?.sequence ?? record.sequence;
  if (event.sequence !== undefined && event.sequence < currentSequence) {
    return errors.badRequest(
      'Invalid sequence value. The specified sequence number is below the current sequence number of the resource.',
      'calendar',
      'invalidSequenceValue',
    );
  }

  const self = calendarKey(calendar.id);
  let fields = event.fields;
  let timing = event.timing;
  if (organizerSide) {
    markOrganizerAccepted(event, record.organizer.email, body.attendees);
  } else if (sharedView(baseFields, baseTiming, self) === sharedView(fields, timing, self)) {
    fields = withOwnReply(baseFields, fields, self);
    timing = baseTiming;
  } else if (!record.fields.guestsCanModify) {
    return errors.forbidden('Shared properties can only be changed by the organizer of the event.', 'calendar', 'forbiddenForNonOrganizer');
  }

  const timesChanged = canonical(timing) !== canonical(baseTiming) || canonical(fields.recurrence) !== canonical(baseFields.recurrence);
  const changed = timesChanged || canonical(fields) !== canonical(baseFields);
  const sequence = event.sequence ?? (timesChanged ? currentSequence + 1 : currentSequence);
  const before = attendeeEmails(record);
  const answered = answeredGuests(baseFields);
  const wasCancelled = record.fields.status === 'cancelled';
  if (instance) {
    const { etag, changeSeq } = nextEtag(world, now);
    record.exceptions.set(instance.key, { fields, timing, cancelled: fields.status === 'cancelled', updated: now, etag, sequence, changeSeq });
    record.changeSeq = changeSeq;
  } else {
    record.fields = fields;
    record.timing = timing;
    record.sequence = sequence;
    touch(world, record, now);
  }
  copy.reminders = event.reminders ?? { useDefault: true };
  copy.changeSeq = record.changeSeq;
  const mine = fields.attendees?.find((a) => a.email.toLowerCase() === self);
  if (!organizerSide && copy.dismissed && mine && mine.responseStatus !== 'declined') copy.dismissed = false;

  if (organizerSide || record.fields.guestsCanModify) announce(call, record, { before, answered, wasCancelled, changed });
  const rendered = instance ? instanceOf(record, instance.key, instance.originalTiming) : undefined;
  return ok(renderEvent({ world, calendar, role, tz: calendar.timeZone, ...maxAttendees(call) }, copy, rendered));
}

/** The guests who had answered (accepted, declined or tentative). */
const answeredGuests = (fields: EventFields): Set<string> =>
  new Set((fields.attendees ?? []).filter((a) => a.responseStatus !== 'needsAction').map((a) => a.email.toLowerCase()));

interface Change {
  before: string[];
  answered: ReadonlySet<string>;
  wasCancelled: boolean;
  changed: boolean;
}

/**
 * Guest copies follow the guest list; mail goes to added guests and to those whose answer this write reset
 * (invitation: they are asked again — openonion/connectonion#1558 saw "every already-answered attendee … emailed a
 * fresh invitation"), removed and, on cancel, all (cancellation), others (update).
 */
function announce(call: ApiCall, record: EventRecord, change: Change): void {
  const { before, answered } = change;
  const after = attendeeEmails(record);
  const added = after.filter((e) => !before.includes(e));
  const removed = before.filter((e) => !after.includes(e));
  const kept = after.filter((e) => before.includes(e));
  const stillAnswered = answeredGuests(record.fields);
  const reset = kept.filter((e) => answered.has(e) && !stillAnswered.has(e));
  const keptOff = syncGuestCopies(call.world, record, new Set(added));
  const mode = sendUpdatesMode(call.query);
  notify(call.world, record, 'invitation', added, mode, call.now);
  inviteKeptOff(
    call.world,
    record,
    keptOff.filter((e) => added.includes(e)),
    mode,
    call.now,
  );
  notify(call.world, record, 'cancellation', removed, mode, call.now);
  if (record.fields.status === 'cancelled' && !change.wasCancelled) notify(call.world, record, 'cancellation', kept, mode, call.now);
  else {
    notify(call.world, record, 'invitation', reset, mode, call.now);
    if (change.changed)
      notify(
        call.world,
        record,
        'update',
        kept.filter((e) => !reset.includes(e)),
        mode,
        call.now,
      );
  }
}

export const patchEvent = (call: ApiCall) => modifyEvent(call, 'patch');
export const updateEvent = (call: ApiCall) => modifyEvent(call, 'update');
