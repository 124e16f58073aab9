import { setTimeout as sleep } from 'node:timers/promises';
import { type HubError, type Result, fail, ok } from '../../core/errors';
import { type GraphCalendarDeps, factKey } from './calendar-graph';

/**
 * What one replica remembers of its own recent writes to a connection's calendars, and the waits that absorb
 * Outlook's propagation.
 *
 * Outlook is eventually consistent for lists: a new event reaches `$filter` lists, calendarView and getSchedule
 * only after a delay (the sandbox emulates 1 s), while a read by id is served from the mailbox store. So:
 * - a lookup of an event by its dedupe key after a lost answer is asked again with backoff inside the deadline;
 * - a 404 for an event this replica created in the last minute is taken for lag, asked again the same way, and
 *   if it outlasts the waits it is RESOURCE_NOT_FOUND with `recently_created: true`, retryable (as for Google);
 * - lists this replica reads (getSchedule, calendarView) are joined with the events it created in the last
 *   minute, read by id (calendar-recent.ts), so its own new event is never shown as free time;
 * - Graph answers 404 for a deleted event, as for one that never existed (Google keeps a 410): a delete this
 *   replica sent lets a repeat of it say `alreadyDeleted` (calendar-delete.ts).
 * All of it is per process: a call that lands on another replica gets Graph's answer as it is.
 */

/** How long after a create a 404 for that event is taken for propagation rather than absence. */
const RECENT_CREATE_MS = 60_000;
/** How long a sent delete, and a create's dedupe key, are remembered: beyond any retry of one tool call. */
const RECENT_WRITE_MS = 10 * 60_000;
/** Waits before each repeat: at most ~3.75 s in all, and never past the deadline. */
export const SETTLE_WAITS_MS = [250, 500, 1000, 2000] as const;

const eventFact = (deps: GraphCalendarDeps, what: string, calendarId: string, eventId: string) =>
  factKey(deps, `calendar:${what}\u0000${calendarId.trim().toLowerCase()}\u0000${eventId}`);

const ABSENT: HubError = { code: 'RESOURCE_NOT_FOUND', message: 'not remembered', retryable: false };

/** Whether the cache holds `key` (a failing loader leaves nothing behind). */
const holds = async (deps: GraphCalendarDeps, key: string) => (await deps.cache.memo(key, RECENT_CREATE_MS, async () => fail(ABSENT))).ok;

export async function rememberCreated(deps: GraphCalendarDeps, calendarId: string, eventId: string): Promise<void> {
  await deps.cache.memo(eventFact(deps, 'created', calendarId, eventId), RECENT_CREATE_MS, async () => ok(true));
  // The calendar's list of them, newest last, for the lists that lag (calendar-recent.ts). Replaced whole: a
  // create racing this one on the same replica may drop the other's entry — that event then shows in lists only
  // once Outlook has propagated it, as on another replica.
  const key = recentKey(deps, calendarId);
  const now = deps.now();
  const kept = (await createdLately(deps, calendarId)).filter((r) => r.id !== eventId).slice(-(MAX_RECENT - 1));
  deps.cache.forget(key);
  await deps.cache.memo(key, RECENT_CREATE_MS, async () => ok([...kept, { id: eventId, at: now }]));
}

/** An event this replica created, and when. */
export interface RecentCreate {
  id: string;
  at: number;
}

/** How many recent creates per calendar are remembered: beyond one agent's burst, a bound on the reads they cost. */
const MAX_RECENT = 20;
const recentKey = (deps: GraphCalendarDeps, calendarId: string) => factKey(deps, `calendar:recent\u0000${calendarId.trim().toLowerCase()}`);

/** The events this replica created in `calendarId` within the last RECENT_CREATE_MS, oldest first. */
export async function createdLately(deps: GraphCalendarDeps, calendarId: string): Promise<RecentCreate[]> {
  const got = await deps.cache.memo<RecentCreate[]>(recentKey(deps, calendarId), RECENT_CREATE_MS, async () => fail(ABSENT));
  const horizon = deps.now() - RECENT_CREATE_MS;
  return got.ok ? got.value.filter((r) => r.at > horizon) : [];
}

export const createdRecently = (deps: GraphCalendarDeps, calendarId: string, eventId: string): Promise<boolean> =>
  holds(deps, eventFact(deps, 'created', calendarId, eventId));

/** The event a dedupe key made on this replica, if it did lately. */
export async function eventOfKey(deps: GraphCalendarDeps, calendarId: string, dedupKey: string): Promise<string | undefined> {
  const got = await deps.cache.memo<string>(eventFact(deps, 'dedup', calendarId, dedupKey), RECENT_WRITE_MS, async () => fail(ABSENT));
  return got.ok ? got.value : undefined;
}

export async function rememberKey(deps: GraphCalendarDeps, calendarId: string, dedupKey: string, eventId: string): Promise<void> {
  await deps.cache.memo(eventFact(deps, 'dedup', calendarId, dedupKey), RECENT_WRITE_MS, async () => ok(eventId));
}

/** A delete of one event sent from this replica: `maybeApplied` once a DELETE was answered 204 or may have reached Graph. */
export interface DeleteRecord {
  maybeApplied: boolean;
}

export async function deleteRecord(deps: GraphCalendarDeps, calendarId: string, eventId: string): Promise<DeleteRecord> {
  const got = await deps.cache.memo<DeleteRecord>(eventFact(deps, 'deleted', calendarId, eventId), RECENT_WRITE_MS, async () => ok({ maybeApplied: false }));
  return got.ok ? got.value : { maybeApplied: false };
}

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

/** A read or write of an event by id: 404s are retried when this replica created the event lately, and marked if they last. */
export async function settleById<T>(deps: GraphCalendarDeps, tolerate: boolean, attempt: () => Promise<Result<T>>): Promise<Result<T>> {
  if (!tolerate) return attempt();
  const answer = await settle(deps, attempt, (a) => !a.ok && isPlain404(a.error));
  if (answer.ok || !isPlain404(answer.error)) return answer;
  return fail({ ...answer.error, retryable: true, details: { ...answer.error.details, recently_created: true } });
}
