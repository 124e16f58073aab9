import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { CreateOptions, CreatedEvent, EventDraft } from '../../core/calendar';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import { EVENT_SELECT, type GraphEvent, graphEventSchema, toCalendarEvent } from './calendar-answers';
import { eventsPath } from './calendar-events';
import { type Graph, unexpectedAnswer } from './calendar-graph';
import { eventOfKey, rememberCreated, rememberKey, settle, spanOf } from './calendar-memory';
import { notificationsUnsupported, toGraphBody } from './calendar-write-body';

/**
 * Creating an event once per dedupe key, whatever fails in between.
 *
 * Two marks go on every create. Graph's `transactionId` ("a custom identifier… for the server to avoid redundant
 * POST operations in case of client retries to create the same event") makes a repeat of the same POST answer 201
 * with the first event instead of making a second; a repeat with another body — or, on the harsher reading the
 * sandbox takes, after the event was edited — is refused 400 `ErrorDuplicateTransactionId` ("has already been used
 * to create a different event", as clients report it). And a single-value extended property carries the key, so
 * the event can be found with `$filter` when Graph's answer was lost or it refused the repeat: Graph documents no
 * way to read an event by transactionId. Lists lag behind creates, so that lookup is asked again with backoff
 * inside the deadline.
 *
 * `replayed` is true when the event already existed: found by its key (after a lost answer or a refused repeat),
 * remembered by the Hub (by any replica, when they share Redis: calendar-memory.ts), or — a repeat Graph answered
 * 201 — created more than SKEW_MS before this call began by Graph's clock (a repeat within that window whose key the
 * Hub no longer knows reads as new: the same event either way).
 */

/** The Hub's own property set: a GUID made for it, so no other application's property can collide. */
export const DEDUP_PROPERTY = 'String {6d8e2f3a-5b71-4c0e-9a24-e1f7c3b9d605} Name HubDedupKey';
/** How much Graph's and the Hub's clocks may disagree before an old createdDateTime is taken for a replay. */
const SKEW_MS = 10_000;
/** Matches found by the key: more than one would mean a create outside the Hub's control; the earliest is the one. */
const LOOKUP_TOP = '5';

const listSchema = z.object({ value: z.array(graphEventSchema).max(100) });

/** The event the key made, or null when Graph lists none (yet). */
async function lookup(graph: Graph, path: string, key: string): Promise<Result<GraphEvent | null>> {
  const filter = `singleValueExtendedProperties/Any(ep: ep/id eq '${DEDUP_PROPERTY}' and ep/value eq '${key.replace(/'/g, "''")}')`;
  const answer = await graph.send(
    'events.list',
    true,
    { method: 'GET', path, query: { $filter: filter, $select: EVENT_SELECT, $top: LOOKUP_TOP } },
    listSchema,
  );
  if (!answer.ok) return answer;
  const earliest = [...answer.value.value].sort((a, b) => (a.createdDateTime ?? '').localeCompare(b.createdDateTime ?? ''))[0];
  return ok(earliest ?? null);
}

const findByKey = (graph: Graph, path: string, key: string) =>
  settle(
    graph.deps,
    () => lookup(graph, path, key),
    (a) => a.ok && a.value === null,
  );

/** A failure after which Graph may have made the event: no answer, a timeout, or a 5xx (a 504 says nothing either way). */
function mayHaveApplied(error: HubError): boolean {
  if (error.code !== 'EXTERNAL_API_ERROR') return false;
  const reason = error.details?.reason;
  const status = error.details?.upstream_status;
  return reason === 'timeout' || reason === 'network' || (typeof status === 'number' && status >= 500);
}

const refusedRepeat = (error: HubError) => error.details?.reason === 'ErrorDuplicateTransactionId';

export async function createEvent(graph: Graph, calendarId: string, draft: EventDraft, options: CreateOptions): Promise<Result<CreatedEvent>> {
  const { deps } = graph;
  const path = eventsPath(calendarId);
  if (!path.ok) return path;
  if (options.notify === false && (draft.attendees?.length ?? 0) > 0) return fail(notificationsUnsupported('created'));
  const written = toGraphBody(draft);
  if (!written.ok) return written;
  // Without a request_id the call still names its event, so the resilience layer's own retries stay safe.
  const key = options.dedupKey ?? randomBytes(20).toString('hex');
  const body = { ...written.value.body, transactionId: `hub-${key}`, singleValueExtendedProperties: [{ id: DEDUP_PROPERTY, value: key }] };
  const startedAt = deps.now();
  const known = options.dedupKey === null ? undefined : await eventOfKey(deps, calendarId, key);

  const done = async (raw: GraphEvent, replayed: boolean): Promise<Result<CreatedEvent>> => {
    const event = toCalendarEvent(raw);
    if (!event) return fail(unexpectedAnswer('events.create'));
    await rememberKey(deps, calendarId, key, event.id);
    await rememberCreated(deps, calendarId, event.id, spanOf(event));
    return ok({ event, replayed });
  };

  const posted = await graph.send('events.create', true, { method: 'POST', path: path.value, body }, graphEventSchema);
  if (posted.ok) {
    const created = Date.parse(posted.value.createdDateTime ?? '');
    return done(posted.value, known !== undefined || (!Number.isNaN(created) && created < startedAt - SKEW_MS));
  }
  const { error } = posted;
  if (!refusedRepeat(error) && !mayHaveApplied(error)) return posted;
  const found = await findByKey(graph, path.value, key);
  if (found.ok && found.value) return done(found.value, true);
  if (!refusedRepeat(error)) return posted; // not there (yet): the original failure, retryable with the same key
  if (!found.ok) return found;
  return fail(
    hubError('CONFLICT', 'Outlook says this request_id already created a different event, and it can no longer be found; use a new request_id', {
      retryable: false,
      details: { reason: 'request_id_reused' },
    }),
  );
}
