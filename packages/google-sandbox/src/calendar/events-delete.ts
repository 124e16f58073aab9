import { type ApiCall, type ApiResult, noContent } from '../api/types';
import { errors } from '../google-errors';
import { calendarKey, openCalendar } from './access';
import { attendeeEmails, notify, sendUpdatesMode } from './invites';
import { instanceFields, locateEvent } from './occurrences';
import { failedPrecondition } from './preconditions';
import { copyStatus, isOrganizerCopy, nextEtag, touch } from './render';
import type { EventFields } from './state';

/**
 * `events.delete`. The organizer deleting cancels the event for everyone (it stays, status "cancelled", so its id
 * stays taken and a second delete is 410). A guest deleting only removes it from its own calendar and declines,
 * which is what the organizer then sees. Deleting an instance id cancels that one occurrence. `If-Match` makes it
 * conditional (preconditions.ts).
 */

const declined = (fields: EventFields, self: string): EventFields =>
  fields.attendees
    ? { ...fields, attendees: fields.attendees.map((a) => (a.email.toLowerCase() === self ? { ...a, responseStatus: 'declined' as const } : a)) }
    : fields;

export function deleteEvent(call: ApiCall): ApiResult {
  const opened = openCalendar(call, call.params.calendarId!, 'writer');
  if (!opened.ok) return opened.error;
  const { calendar } = opened;
  const { world, now } = call;
  const located = locateEvent(world, calendar, call.params.eventId!);
  if (!located) return errors.notFound('calendar');
  const { copy, instance } = located;
  const record = copy.record;
  const organizerSide = isOrganizerCopy(record, calendar);
  const self = calendarKey(calendar.id);
  if (copyStatus(copy, calendar) === 'cancelled' || instance?.status === 'cancelled') return errors.deleted();
  const stale = failedPrecondition(call, instance?.exception?.etag ?? record.etag);
  if (stale) return stale;
  const mode = sendUpdatesMode(call.query);

  if (instance) {
    const { etag, changeSeq } = nextEtag(world, now);
    const fields = instanceFields(world, instance, record);
    const sequence = (instance.exception?.sequence ?? record.sequence) + (organizerSide ? 1 : 0);
    // A guest cannot cancel an occurrence for everyone: deleting it from its calendar declines that occurrence.
    record.exceptions.set(
      instance.key,
      organizerSide
        ? { ...(instance.exception?.fields ? { fields, timing: instance.timing } : {}), cancelled: true, updated: now, etag, sequence, changeSeq }
        : { fields: declined(fields, self), timing: instance.timing, cancelled: false, updated: now, etag, sequence, changeSeq },
    );
    record.changeSeq = changeSeq;
    if (organizerSide) notify(world, record, 'cancellation', attendeeEmails(record), mode, now);
    return noContent();
  }

  if (organizerSide) {
    record.fields = { ...record.fields, status: 'cancelled' };
    touch(world, record, now);
    notify(world, record, 'cancellation', attendeeEmails(record), mode, now);
  } else {
    copy.dismissed = true;
    record.fields = declined(record.fields, self);
    touch(world, record, now);
  }
  copy.changeSeq = record.changeSeq;
  return noContent();
}
