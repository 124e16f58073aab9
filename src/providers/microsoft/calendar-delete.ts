import type { WriteOptions } from '../../core/calendar';
import { type Result, fail, ok } from '../../core/errors';
import { eventPath, readRaw } from './calendar-events';
import type { Graph } from './calendar-graph';
import { createdRecently, deleteRecord, isPlain404, rememberDeleteSent, settle } from './calendar-memory';
import { notificationsUnsupported } from './calendar-write-body';
import { GraphError } from './graph-request';

/**
 * Deleting an event. Graph answers 204, and 404 ErrorItemNotFound for an event that is gone — whether it was
 * deleted or never existed (Google keeps a deleted event's id and answers 410). So the adapter remembers, for ten
 * minutes and for every replica when they share Redis (calendar-memory.ts), each DELETE it sent for an event that
 * may have reached Graph (answered 204, or lost: a timeout, a dropped connection, a 5xx). A later 404 for that
 * event — a retry inside the call after the first attempt's answer was lost, or the agent repeating the call — is
 * `alreadyDeleted: true`; any other 404 is RESOURCE_NOT_FOUND, as is a repeat that comes later than that.
 *
 * The organizer deleting a meeting mails every attendee a cancellation (event-delete), which Graph cannot skip:
 * with send_notifications false that delete is refused before anything is written.
 */

/** A failure that may have followed the DELETE reaching Graph: anything but a verdict (4xx other than 408). */
const mayHaveReached = (err: unknown) => !(err instanceof GraphError && err.status < 500 && err.status !== 408);

export async function deleteEvent(graph: Graph, calendarId: string, eventId: string, options: WriteOptions): Promise<Result<{ alreadyDeleted: boolean }>> {
  const { deps } = graph;
  const path = eventPath(calendarId, eventId);
  if (!path.ok) return path;
  const record = await deleteRecord(deps, calendarId, eventId);
  const justCreated = await createdRecently(deps, calendarId, eventId);

  if (options.notify === false) {
    const current = await settle(
      deps,
      () => readRaw(graph, path.value),
      (a) => justCreated && !record.maybeApplied && !a.ok && isPlain404(a.error),
    );
    if (current.ok) {
      const e = current.value;
      if (e.isOrganizer !== false && (e.attendees?.length ?? 0) > 0) return fail(notificationsUnsupported('cancelled'));
    } else if (!isPlain404(current.error)) return current;
    // A 404 goes on to the delete, whose answer is read below.
  }

  let goneAfterOurDelete = false;
  const attempt = () =>
    deps.call({ operation: 'events.delete', idempotent: true }, async (signal, token) => {
      const before = record.maybeApplied;
      try {
        const answer = await graph.fetch(signal, token, { method: 'DELETE', path: path.value });
        record.maybeApplied = true;
        return answer;
      } catch (err) {
        if (err instanceof GraphError && err.status === 404) goneAfterOurDelete = before;
        else if (mayHaveReached(err)) record.maybeApplied = true;
        throw err;
      }
    });
  // Right after the Hub created the event, a 404 may be Outlook's lag — unless an earlier DELETE explains it.
  const sentBefore = record.maybeApplied;
  const deleted = await settle(deps, attempt, (a) => justCreated && !goneAfterOurDelete && !a.ok && isPlain404(a.error));
  if (record.maybeApplied && !sentBefore) await rememberDeleteSent(deps, calendarId, eventId);
  if (deleted.ok) return ok({ alreadyDeleted: false });
  const { error } = deleted;
  if (!isPlain404(error)) return deleted;
  if (goneAfterOurDelete) return ok({ alreadyDeleted: true });
  return justCreated ? fail({ ...error, retryable: true, details: { ...error.details, recently_created: true } }) : deleted;
}
