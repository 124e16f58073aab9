import type { CalendarEvent } from '../../core/calendar';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import { EVENT_SELECT, type GraphEvent, graphEventSchema, toCalendarEvent } from './calendar-answers';
import { type Graph, calendarPath, idSegment, unexpectedAnswer } from './calendar-graph';

/** Reading one event by id, and what every event operation shares: its path and its mapping. */

/**
 * Ids that cannot be Graph ids (empty, dot segments) never leave the Hub: to the caller there is no such event,
 * as Graph itself answers an id it cannot parse (400 ErrorInvalidIdMalformed, which the classifier calls not found).
 */
const notAnId = (what: string): HubError =>
  hubError('RESOURCE_NOT_FOUND', `Microsoft does not know ${what}`, { details: { upstream_status: 400, reason: 'ErrorInvalidIdMalformed' } });

/** `/me/calendar/events/{id}` (primary) or `/me/calendars/{calendarId}/events/{id}`. */
export function eventPath(calendarId: string, eventId: string): Result<string> {
  const calendar = calendarPath(calendarId);
  if (calendar === undefined) return fail(notAnId(`calendar "${calendarId.slice(0, 100)}"`));
  const segment = idSegment(eventId);
  if (segment === undefined) return fail(notAnId(`event "${eventId.slice(0, 100)}"`));
  return ok(`${calendar}/events/${segment}`);
}

export function eventsPath(calendarId: string): Result<string> {
  const calendar = calendarPath(calendarId);
  return calendar === undefined ? fail(notAnId(`calendar "${calendarId.slice(0, 100)}"`)) : ok(`${calendar}/events`);
}

/** The event as Graph holds it (with its etag), validated. */
export function readRaw(graph: Graph, path: string): Promise<Result<GraphEvent>> {
  return graph.send('events.get', true, { method: 'GET', path, query: { $select: EVENT_SELECT } }, graphEventSchema);
}

/** The port's event from a validated answer; an answer whose times cannot be read is unexpected. */
export function mapped(answer: Result<GraphEvent>, operation: string): Result<CalendarEvent> {
  if (!answer.ok) return answer;
  const event = toCalendarEvent(answer.value);
  return event ? ok(event) : fail(unexpectedAnswer(operation));
}
