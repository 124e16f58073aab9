import { type ApiCall, type ApiResult, ok } from '../api/types';
import { errors } from '../google-errors';
import { openCalendar } from './access';
import { maxAttendees } from './events-insert';
import { locateEvent } from './occurrences';
import { renderEvent } from './render';
import { isValidTimeZone } from './time';

/** The zone a read renders times in: the `timeZone` query parameter, else the calendar's. */
export function responseZone(call: ApiCall, calendarTz: string): { ok: true; tz: string } | { ok: false; error: ApiResult } {
  const tz = call.query.timeZone;
  if (typeof tz !== 'string' || tz === '') return { ok: true, tz: calendarTz };
  return isValidTimeZone(tz) ? { ok: true, tz } : { ok: false, error: errors.badRequest('Invalid time zone definition.', 'calendar', 'invalid') };
}

/**
 * `events.get`: any event id on the calendar, including a deleted one (Discovery: "The get method always
 * returns them", status "cancelled") and an occurrence of a series by its instance id.
 */
export function getEvent(call: ApiCall): ApiResult {
  const opened = openCalendar(call, call.params.calendarId!, 'freeBusyReader');
  if (!opened.ok) return opened.error;
  const { calendar, role } = opened;
  const zone = responseZone(call, calendar.timeZone);
  if (!zone.ok) return zone.error;
  const located = locateEvent(call.world, calendar, call.params.eventId!);
  if (!located) return errors.notFound('calendar');
  return ok(renderEvent({ world: call.world, calendar, role, tz: zone.tz, ...maxAttendees(call) }, located.copy, located.instance));
}
