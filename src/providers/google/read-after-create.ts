import { setTimeout as sleep } from 'node:timers/promises';
import { type HubError, type Result, fail } from '../../core/errors';
import type { GoogleCalendarDeps } from './calendar-client';

/**
 * Reads that follow the Hub's own create. Google is eventually consistent: its errors guide answers a 404 with
 * "Suggested action: Use exponential backoff" (https://developers.google.com/calendar/api/guides/errors, "404: Not
 * Found"), and production clients retry 404s for exactly this (Netflix/dispatch#165: "Google APIs tend to have
 * eventual consistency problems"). So a 404 for an event the Hub created in the last minute — or one Google
 * has just confirmed exists (a 409 duplicate) — is asked again a few times, with backoff, inside the call's
 * deadline. Any other 404 stays RESOURCE_NOT_FOUND at once: the event really is unknown.
 *
 * The memory of recent creates is the connection's recent-writes port (src/core/recent-writes.ts): shared by
 * every replica when they share Redis, so a call routed to another replica right after the create waits too.
 */

/** How long after a create a 404 for that event is taken for propagation rather than absence. */
const RECENT_CREATE_MS = 60_000;
/** Waits before each repeat: at most ~3.75 s in all, and never past the deadline. */
const WAITS_MS = [250, 500, 1000, 2000];

const createdKey = (calendarId: string, eventId: string) => `google:calendar:created\u0000${calendarId.trim().toLowerCase()}\u0000${eventId}`;

/** Notes that this call created `eventId` (so calls right after it, on any replica, tolerate Google's lag). */
export async function rememberCreated(deps: GoogleCalendarDeps, calendarId: string, eventId: string): Promise<void> {
  await deps.recent.put(deps.connection, createdKey(calendarId, eventId), '1', RECENT_CREATE_MS);
}

/** Whether the Hub created `eventId` within the last minute. */
export async function createdRecently(deps: GoogleCalendarDeps, calendarId: string, eventId: string): Promise<boolean> {
  return (await deps.recent.get(deps.connection, createdKey(calendarId, eventId))) !== undefined;
}

const isPlain404 = (error: HubError) => error.code === 'RESOURCE_NOT_FOUND' && error.details?.upstream_status === 404;

/**
 * Runs `attempt`; when `tolerate` and Google answers 404, runs it again after each wait until it succeeds,
 * fails otherwise, the waits run out or the deadline passes. A 404 that outlasts them is marked
 * `recently_created` (retryable: the event exists, Google has not shown it yet).
 */
export async function untilVisible<T>(deps: GoogleCalendarDeps, tolerate: boolean, attempt: () => Promise<Result<T>>): Promise<Result<T>> {
  let answer = await attempt();
  if (!tolerate) return answer;
  for (const wait of WAITS_MS) {
    if (answer.ok || !isPlain404(answer.error)) return answer;
    try {
      await sleep(wait, undefined, { signal: deps.deadline });
    } catch {
      break; // the deadline passed while waiting
    }
    answer = await attempt();
  }
  if (answer.ok || !isPlain404(answer.error)) return answer;
  return fail({ ...answer.error, retryable: true, details: { ...answer.error.details, recently_created: true } });
}
