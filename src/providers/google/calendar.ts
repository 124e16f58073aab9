import type { CalendarPort } from '../../core/calendar';
import { fail, ok } from '../../core/errors';
import { eventNotFound } from './calendar-not-found';
import { toCalendarEvent } from './calendar-answers';
import { type GoogleCalendarDeps, calendarRequest } from './calendar-client';
import { accountZone, listCalendars, listPrimaryEvents, queryFreeBusy, readEvent } from './calendar-reads';
import { createEvent, deleteEvent, updateEvent } from './calendar-writes';
import { createdRecently, untilVisible } from './read-after-create';

export type { GoogleCalendarDeps } from './calendar-client';

/**
 * Google Calendar (v3) behind the calendar port: one adapter per tool call (its deps carry the call's deadline),
 * sharing the per-process facts cache with every other call of the connection. Google keeps no working hours for
 * an account (the Hub keeps them per connection).
 */
export function createGoogleCalendar(deps: GoogleCalendarDeps): CalendarPort {
  const request = calendarRequest(deps);
  return {
    timeZone: () => accountZone(deps, request),
    workingHours: () => Promise.resolve(ok(null)),
    async getEvent(calendarId, eventId) {
      const tolerate = await createdRecently(deps, calendarId, eventId);
      const got = await untilVisible(deps, tolerate, () => readEvent(deps, request, calendarId, eventId));
      if (got.ok) return ok(toCalendarEvent(got.value));
      return got.error.code === 'RESOURCE_NOT_FOUND' ? fail(eventNotFound(got.error, eventId, calendarId)) : got;
    },
    createEvent: (calendarId, draft, options) => createEvent(deps, request, calendarId, draft, options),
    updateEvent: (calendarId, eventId, changes, options) => updateEvent(deps, request, calendarId, eventId, changes, options),
    deleteEvent: (calendarId, eventId, options) => deleteEvent(deps, request, calendarId, eventId, options),
    freeBusy: (ids, range, zone) => queryFreeBusy(deps, request, ids, range, zone),
    agenda: (range) => listPrimaryEvents(deps, request, range),
    listCalendars: (minAccessRole) => listCalendars(deps, request, minAccessRole),
  };
}
