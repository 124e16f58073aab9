import { setTimeout as sleep } from 'node:timers/promises';
import type { EventTime, Interval } from '../../core/calendar';
import { type HubError, type Result, fail } from '../../core/errors';
import type { GraphCalendarDeps } from './calendar-graph';

/**
 * What the Hub remembers of its own recent writes to a connection's calendars, and the waits that absorb
 * Outlook's propagation.
 *
 * Outlook is eventually consistent for lists: a new event reaches `$filter` lists, calendarView and getSchedule
 * only after a delay (the sandbox emulates 1 s), while a read by id is served from the mailbox store. So:
 * - a lookup of an event by its dedupe key after a lost answer is asked again with backoff inside the deadline;
 * - a 404 for an event the Hub created in the last minute is taken for lag, asked again the same way, and if it
 *   outlasts the waits it is RESOURCE_NOT_FOUND with `recently_created: true`, retryable (as for Google);
 * - lists the Hub reads (getSchedule, calendarView) are joined with the events it created in the last minute,
 *   read by id (calendar-recent.ts), so its own new event is never shown as free time;
 * - Graph answers 404 for a deleted event, as for one that never existed (Google keeps a 410): a delete the Hub
 *   sent lets a repeat of it say `alreadyDeleted` (calendar-delete.ts).
 * The facts live in the recent-writes port (deps.recent, src/core/recent-writes.ts), per connection: in Redis
 * when the Hub is configured with it, so a call that lands on another replica right after a write sees it as the
 * writer does; in this process's memory otherwise. A list read asks it once per calendar.
 */

/** How long after a create a 404 for that event is taken for propagation rather than absence. */
const RECENT_CREATE_MS = 60_000;
/** How long a sent delete, and a create's dedupe key, are remembered: beyond any retry of one tool call. */
const RECENT_WRITE_MS = 10 * 60_000;
/** Waits before each repeat: at most ~3.75 s in all, and never past the deadline. */
export const SETTLE_WAITS_MS = [250, 500, 1000, 2000] as const;
/** How many recent creates per calendar are remembered: beyond one agent's burst, a bound on the reads they cost. */
const MAX_RECENT = 20;

const calendarKey = (calendarId: string) => calendarId.trim().toLowerCase();
const eventFact = (what: string, calendarId: string, id: string) => `msgraph:calendar:${what}\u0000${calendarKey(calendarId)}\u0000${id}`;
const recentList = (calendarId: string) => `msgraph:calendar:recent\u0000${calendarKey(calendarId)}`;

/** An event the Hub created, and when; with the times the Hub gave it (at its create or a later move), when known. */
export interface RecentCreate {
  id: string;
  at: number;
  /** Every span the Hub wrote for it in the window; empty when unknown (entries from before spans were kept). */
  spans: Interval[];
}

/** A day: what a span is widened by on each side (spanOf). */
const DAY_MS = 86_400_000;

/**
 * The UTC span an event's times cover, widened by a day each way, for telling whether a list read can hold it: the
 * widening keeps an event someone reshapes within its day in the minute after the Hub made it (made all-day,
 * lengthened, shifted by hours) in view. An all-day event's dates lie in the mailbox's zone, up to 14 hours
 * either side of UTC, so they are widened by one more day.
 */
export function spanOf(event: { start: EventTime | null; end: EventTime | null }): Interval | undefined {
  const at = (t: EventTime | null, edge: -1 | 1) =>
    t === null ? undefined : 'instant' in t ? t.instant + edge * DAY_MS : Date.parse(`${t.date}T00:00:00Z`) + edge * 2 * DAY_MS;
  const start = at(event.start, -1);
  const end = at(event.end, 1);
  return start !== undefined && end !== undefined && Number.isFinite(start) && Number.isFinite(end) ? { start, end } : undefined;
}

// A list member: the event id, then its span when known ("id", or "id\u0000start\u0000end").
const memberOf = (eventId: string, span: Interval | undefined) => (span ? `${eventId}\u0000${span.start}\u0000${span.end}` : eventId);

/** The list's entries by event, oldest first, each with every span remembered for it. */
function byEvent(entries: readonly { member: string; at: number }[]): RecentCreate[] {
  const events = new Map<string, RecentCreate>();
  for (const { member, at } of entries) {
    const [id, start, end] = member.split('\u0000');
    if (!id) continue;
    const known = events.get(id) ?? { id, at, spans: [] };
    known.at = Math.max(known.at, at);
    if (start !== undefined && end !== undefined) known.spans.push({ start: Number(start), end: Number(end) });
    events.set(id, known);
  }
  return [...events.values()];
}

/** One tool call's view of each calendar's recent creates: one read of the port per calendar and call. */
const readThisCall = new WeakMap<GraphCalendarDeps, Map<string, Promise<RecentCreate[]>>>();

export async function rememberCreated(deps: GraphCalendarDeps, calendarId: string, eventId: string, span: Interval | undefined): Promise<void> {
  await Promise.all([
    deps.recent.put(deps.connection, eventFact('created', calendarId, eventId), '1', RECENT_CREATE_MS),
    rememberWritten(deps, calendarId, eventId, span),
  ]);
}

/**
 * Adds the event, with the span the Hub just gave it, to the calendar's list for the lists that lag
 * (calendar-recent.ts): at its create, and again when the Hub moves it while it is still recent.
 */
export async function rememberWritten(deps: GraphCalendarDeps, calendarId: string, eventId: string, span: Interval | undefined): Promise<void> {
  const entry = { member: memberOf(eventId, span), at: deps.now() };
  await deps.recent.push(deps.connection, recentList(calendarId), entry, { ttlMs: RECENT_CREATE_MS, max: MAX_RECENT });
  readThisCall.get(deps)?.delete(calendarKey(calendarId));
}

/** The events the Hub created in `calendarId` within the last RECENT_CREATE_MS, oldest first. */
export async function createdLately(deps: GraphCalendarDeps, calendarId: string): Promise<RecentCreate[]> {
  let reads = readThisCall.get(deps);
  if (!reads) readThisCall.set(deps, (reads = new Map()));
  const key = calendarKey(calendarId);
  let read = reads.get(key);
  if (!read) {
    read = deps.recent.since(deps.connection, recentList(calendarId), deps.now() - RECENT_CREATE_MS).then((entries) => byEvent(entries).slice(-MAX_RECENT));
    reads.set(key, read);
  }
  const horizon = deps.now() - RECENT_CREATE_MS;
  return (await read).filter((r) => r.at > horizon);
}

export const createdRecently = async (deps: GraphCalendarDeps, calendarId: string, eventId: string): Promise<boolean> =>
  (await deps.recent.get(deps.connection, eventFact('created', calendarId, eventId))) !== undefined;

/** The event a dedupe key made lately, if the Hub knows it. */
export const eventOfKey = (deps: GraphCalendarDeps, calendarId: string, dedupKey: string): Promise<string | undefined> =>
  deps.recent.get(deps.connection, eventFact('dedup', calendarId, dedupKey));

export const rememberKey = (deps: GraphCalendarDeps, calendarId: string, dedupKey: string, eventId: string): Promise<void> =>
  deps.recent.put(deps.connection, eventFact('dedup', calendarId, dedupKey), eventId, RECENT_WRITE_MS);

/** A delete of one event the Hub sent: `maybeApplied` once a DELETE was answered 204 or may have reached Graph. */
export interface DeleteRecord {
  maybeApplied: boolean;
}

export async function deleteRecord(deps: GraphCalendarDeps, calendarId: string, eventId: string): Promise<DeleteRecord> {
  return { maybeApplied: (await deps.recent.get(deps.connection, eventFact('deleted', calendarId, eventId))) !== undefined };
}

/** Remembers that a DELETE of the event may have reached Graph, for whichever replica a repeat of it lands on. */
export const rememberDeleteSent = (deps: GraphCalendarDeps, calendarId: string, eventId: string): Promise<void> =>
  deps.recent.put(deps.connection, eventFact('deleted', calendarId, eventId), '1', RECENT_WRITE_MS);

export const isPlain404 = (error: HubError) => error.code === 'RESOURCE_NOT_FOUND' && error.details?.upstream_status === 404;

/**
 * Runs `attempt`; while `missing` says its answer is propagation lag, runs it again after each wait — until the
 * waits run out or the deadline passes. The last answer is returned as it is.
 */
export async function settle<T>(deps: GraphCalendarDeps, attempt: () => Promise<Result<T>>, missing: (answer: Result<T>) => boolean): Promise<Result<T>> {
  let answer = await attempt();
  for (const wait of SETTLE_WAITS_MS) {
    if (!missing(answer)) return answer;
    try {
      await sleep(wait, undefined, { signal: deps.deadline });
    } catch {
      return answer; // the deadline passed while waiting
    }
    answer = await attempt();
  }
  return answer;
}

/** A read or write of an event by id: 404s are retried when the Hub created the event lately, and marked if they last. */
export async function settleById<T>(deps: GraphCalendarDeps, tolerate: boolean, attempt: () => Promise<Result<T>>): Promise<Result<T>> {
  if (!tolerate) return attempt();
  const answer = await settle(deps, attempt, (a) => !a.ok && isPlain404(a.error));
  if (answer.ok || !isPlain404(answer.error)) return answer;
  return fail({ ...answer.error, retryable: true, details: { ...answer.error.details, recently_created: true } });
}
