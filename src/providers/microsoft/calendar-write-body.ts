import type { EventChanges } from '../../core/calendar';
import { type HubError, type Result, fail, hubError, ok } from '../../core/errors';
import type { GraphAttendee } from './calendar-answers';

/**
 * The body Graph's event create and update take, from the port's neutral values:
 * - times: the caller's RFC 3339 instant (any offset) written as a UTC wall time with `timeZone: "UTC"` — the
 *   instant is kept exactly; Outlook shows it in each reader's own zone;
 * - the description as `text` content (Outlook escapes and renders it; no HTML of the caller's reaches the body);
 * - the location as its display name; attendees as required attendees.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export function instantOfRfc3339(value: string): number | undefined {
  if (!RFC3339.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Graph's dateTimeTimeZone for an instant: the UTC wall time to the millisecond. */
export const utcDateTime = (ms: number) => ({ dateTime: new Date(ms).toISOString().slice(0, 23), timeZone: 'UTC' });

export const requiredAttendee = (address: string) => ({ emailAddress: { address }, type: 'required' });

/**
 * The complete new guest list, from what Graph holds: guests who stay are written back as they are (address,
 * name, type) — Exchange keeps each kept recipient's response, and sends updates only to those who changed
 * (event-update: "An event update that includes only the attendees property … sends a meeting update to only the
 * attendees that have changed") — new ones are added as required attendees, and those left out are removed.
 */
export function rewriteGuestList(current: readonly GraphAttendee[], emails: readonly string[]) {
  const byEmail = new Map(current.map((a) => [a.emailAddress.address.toLowerCase(), a] as const));
  return emails.map((email) => {
    const kept = byEmail.get(email.toLowerCase());
    if (!kept) return requiredAttendee(email);
    const { address, name } = kept.emailAddress;
    return { emailAddress: { address, ...(name ? { name } : {}) }, type: kept.type ?? 'required' };
  });
}

export const timeRangeEmpty = (): HubError =>
  hubError('VALIDATION_ERROR', 'With this change the event would end before it starts; give both start and end', {
    details: {
      reason: 'time_range_empty',
      issues: [{ path: 'inputs.updates', message: 'with this change the event would end before it starts; give both start and end' }],
    },
  });

const badTime = (field: string): HubError =>
  hubError('VALIDATION_ERROR', `${field} must be an RFC 3339 date-time with an offset`, {
    details: { issues: [{ path: `inputs.${field}`, message: 'must be an RFC 3339 date-time with an offset' }] },
  });

/**
 * `send_notifications: false` where Outlook would email someone anyway: Graph v1.0 has no parameter to create,
 * change or cancel a meeting without mailing its attendees (event-update's notes; the documentation's own
 * tracker: adding or removing attendees "without emailing the other attendees… is actually not possible").
 * Refused before anything is written, naming the field, rather than mailing people the caller said not to.
 */
export const notificationsUnsupported = (what: string): HubError =>
  hubError('VALIDATION_ERROR', `Outlook emails the attendees whenever a meeting is ${what}, and cannot be told not to`, {
    details: {
      reason: 'notifications_not_supported',
      issues: [
        {
          path: 'inputs.send_notifications',
          message: `Outlook always emails the attendees when a meeting is ${what}; leave send_notifications out (or true) to accept that, or leave the attendees out`,
        },
      ],
    },
  });

export interface WriteBody {
  body: Record<string, unknown>;
  start?: number;
  end?: number;
}

/** The fields given, as Graph writes them; both times given must make a non-empty range. */
export function toGraphBody(changes: EventChanges): Result<WriteBody> {
  const body: Record<string, unknown> = {};
  const out: WriteBody = { body };
  if (changes.title !== undefined) body.subject = changes.title;
  if (changes.description !== undefined) body.body = { contentType: 'text', content: changes.description };
  if (changes.location !== undefined) body.location = { displayName: changes.location };
  if (changes.attendees !== undefined) body.attendees = changes.attendees.map(requiredAttendee);
  for (const field of ['start', 'end'] as const) {
    const value = changes[field];
    if (value === undefined) continue;
    const ms = instantOfRfc3339(value);
    if (ms === undefined) return fail(badTime(field));
    out[field] = ms;
    body[field] = utcDateTime(ms);
  }
  if (out.start !== undefined && out.end !== undefined) {
    if (out.end <= out.start) return fail(timeRangeEmpty());
    body.isAllDay = false; // instants: an all-day event given both times becomes a timed one
  }
  return ok(out);
}
