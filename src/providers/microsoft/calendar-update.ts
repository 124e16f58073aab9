import type { CalendarEvent, EventChanges, WriteOptions } from '../../core/calendar';
import { type HubError, type Result, fail, hubError } from '../../core/errors';
import { type GraphEvent, graphEventSchema, instantOf } from './calendar-answers';
import { eventPath, mapped, readRaw } from './calendar-events';
import { type Graph, unexpectedAnswer } from './calendar-graph';
import { createdRecently, rememberWritten, settleById, spanOf } from './calendar-memory';
import { notificationsUnsupported, rewriteGuestList, timeRangeEmpty, toGraphBody } from './calendar-write-body';

/**
 * Changing an event: only the fields given. A plain change is one PATCH. When the change depends on what the
 * event holds — a new guest list (guests who stay keep their replies), only one of start/end (the other is the
 * stored one), or send_notifications false (who would be mailed) — the event is read, the write built from it and
 * sent with `If-Match: <@odata.etag>`: if anyone answered or edited in between, Graph answers 412
 * ErrorIrresolvableConflict and the round starts again, three rounds at most, then CONFLICT `concurrent_change`.
 */

const ROUNDS = 3;

const changedMeanwhile = (error: HubError) => error.code === 'EXTERNAL_API_ERROR' && error.details?.upstream_status === 412;

const allDayNeedsBoth = (): HubError =>
  hubError('VALIDATION_ERROR', 'The event is an all-day event: give both start and end to change its time', {
    details: { reason: 'all_day_event', issues: [{ path: 'inputs.updates', message: 'the event is an all-day event: give both start and end' }] },
  });

/** Who a change of this event would mail: the organizer's meeting with guests (now or after the change). */
const wouldNotify = (current: GraphEvent, changes: EventChanges) =>
  current.isOrganizer !== false && ((current.attendees?.length ?? 0) > 0 || (changes.attendees?.length ?? 0) > 0);

export async function updateEvent(
  graph: Graph,
  calendarId: string,
  eventId: string,
  changes: EventChanges,
  options: WriteOptions,
): Promise<Result<CalendarEvent>> {
  const { deps } = graph;
  const path = eventPath(calendarId, eventId);
  if (!path.ok) return path;
  const written = toGraphBody(changes);
  if (!written.ok) return written;
  const { start, end } = written.value;
  const oneTime = (start === undefined) !== (end === undefined);
  const tolerate = await createdRecently(deps, calendarId, eventId);
  // The same patch sent again ends in the same state (with If-Match: a 412 and a fresh read): safe to retry.
  const patch = (body: Record<string, unknown>, etag?: string) =>
    settleById(deps, tolerate, () =>
      graph.send('events.update', true, { method: 'PATCH', path: path.value, body, ...(etag ? { headers: { 'If-Match': etag } } : {}) }, graphEventSchema),
    );

  // A recent create the Hub moves keeps its place in the lists that lag, under its new times (calendar-recent.ts).
  const done = async (answer: Result<CalendarEvent>): Promise<Result<CalendarEvent>> => {
    if (answer.ok && tolerate && (start !== undefined || end !== undefined)) await rememberWritten(deps, calendarId, eventId, spanOf(answer.value));
    return answer;
  };
  if (changes.attendees === undefined && !oneTime && options.notify !== false) return done(mapped(await patch(written.value.body), 'events.update'));

  for (let round = 1; round <= ROUNDS; round++) {
    const current = await settleById(deps, tolerate, () => readRaw(graph, path.value));
    if (!current.ok) return current;
    const event = current.value;
    if (oneTime) {
      if (event.isAllDay === true) return fail(allDayNeedsBoth());
      const from = start ?? instantOf(event.start);
      const to = end ?? instantOf(event.end);
      if (from === undefined || to === undefined) return fail(unexpectedAnswer('events.get'));
      if (to <= from) return fail(timeRangeEmpty());
    }
    if (options.notify === false && wouldNotify(event, changes)) return fail(notificationsUnsupported('changed'));
    const body = { ...written.value.body };
    if (changes.attendees !== undefined) body.attendees = rewriteGuestList(event.attendees ?? [], changes.attendees);
    // Graph lists every event with an etag; without one the write would go unconditioned, so it is not made.
    if (!event['@odata.etag']) return fail(unexpectedAnswer('events.get'));
    const patched = await patch(body, event['@odata.etag']);
    if (patched.ok || !changedMeanwhile(patched.error)) return done(mapped(patched, 'events.update'));
  }
  return fail(
    hubError('CONFLICT', 'The event kept changing while it was being updated; try again', {
      retryable: true,
      details: { reason: 'concurrent_change', event_id: eventId },
    }),
  );
}
