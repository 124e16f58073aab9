import type { QueryValue } from '../discovery/schema-check';
import { type World, findAccount } from '../world';
import { calendarKey, findCalendar } from './access';
import type { CalendarNotification, EventRecord } from './state';

/**
 * Guests. An invited sandbox account gets the event on its primary calendar straight away — as Google does for
 * its own users, whatever `sendUpdates` says — unless its "Add invitations to my calendar" setting keeps it off
 * (see `addsInvitation`); emails are only recorded, in `world.calendar.notifications`, for the recipients
 * `sendUpdates` selects — "externalOnly" meaning guests who are not sandbox (Google) accounts.
 */

export type SendUpdates = 'all' | 'externalOnly' | 'none';

/** `sendUpdates`, else the deprecated `sendNotifications` boolean; the API default is to send nothing. */
export function sendUpdatesMode(query: Record<string, QueryValue>): SendUpdates {
  const mode = query.sendUpdates;
  if (mode === 'all' || mode === 'externalOnly' || mode === 'none') return mode;
  return query.sendNotifications === true ? 'all' : 'none';
}

export const attendeeEmails = (record: EventRecord) => (record.fields.attendees ?? []).map((a) => a.email.toLowerCase());

// Consumer mail domains are nobody's organization.
const CONSUMER_DOMAINS = new Set(['gmail.com', 'googlemail.com']);
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/**
 * Whether Google puts an invitation from `sender` on `guest`'s calendar by itself. Google Calendar help
 * (https://support.google.com/calendar/answer/37135): "From everyone: All invitations are automatically added";
 * "Only if the sender is known: Events are added to your calendar if the sender is in your contacts, part of
 * your organization, or someone you previously interacted with"; "When I respond to the invitation in email: An
 * event is added to your calendar only after you respond to the email notification."
 */
export function addsInvitation(world: World, guest: string, sender: string): boolean {
  const policy = world.calendar.invitationPolicies.get(guest.toLowerCase());
  if (!policy || policy.add === 'everyone') return true;
  if (policy.add === 'when_responded') return false;
  const from = sender.toLowerCase();
  const sameOrganization = domainOf(from) === domainOf(guest) && !CONSUMER_DOMAINS.has(domainOf(guest));
  return sameOrganization || policy.knownSenders.includes(from);
}

/**
 * Puts the event on each invited sandbox account's primary calendar (un-hiding it for re-invited guests) and
 * returns the guests whose setting kept it off. Their answer is reset to needsAction — the Event resource's
 * warning: such attendees "might have their response reset to needsAction and won't see an event in their
 * calendar unless they change their response in the event invitation email"
 * (https://developers.google.com/calendar/api/v3/reference/events#attendees.responseStatus).
 */
export function syncGuestCopies(world: World, record: EventRecord, reinvited: ReadonlySet<string> = new Set()): string[] {
  const keptOff: string[] = [];
  for (const attendee of record.fields.attendees ?? []) {
    const email = attendee.email.toLowerCase();
    if (email === calendarKey(record.calendarId) || !findAccount(world, email)) continue;
    const calendar = findCalendar(world, email);
    if (!calendar) continue;
    const existing = calendar.events.get(record.id);
    if (!existing) {
      if (!addsInvitation(world, email, record.organizer.email)) {
        attendee.responseStatus = 'needsAction';
        keptOff.push(email);
        continue;
      }
      calendar.events.set(record.id, { record, dismissed: false, reminders: { useDefault: true }, changeSeq: record.changeSeq });
    } else if (existing.record === record && reinvited.has(email)) existing.dismissed = false;
    // A different event with the same id already on the guest's calendar: Google cannot guarantee id uniqueness
    // across calendars either; the guest simply does not get a copy.
  }
  return keptOff;
}

/** Records the emails Google would send about `record` to `recipients` (the organizer never mails itself). */
export function notify(
  world: World,
  record: EventRecord,
  kind: CalendarNotification['kind'],
  recipients: readonly string[],
  mode: SendUpdates,
  now: number,
): void {
  if (mode === 'none') return;
  for (const to of new Set(recipients.map((r) => r.toLowerCase()))) {
    if (mode === 'externalOnly' && findAccount(world, to)) continue;
    recordEmail(world, record, kind, to, mode, now);
  }
}

/**
 * The invitation Google emails to a guest whose setting kept the event off its calendar, "even if the organizer
 * doesn't send one" (Google Calendar help, answer 37135) — unless `sendUpdates` already mailed it.
 */
export function inviteKeptOff(world: World, record: EventRecord, guests: readonly string[], mode: SendUpdates, now: number): void {
  for (const to of guests) {
    if (mode === 'all') continue; // the ordinary invitation went out
    recordEmail(world, record, 'invitation', to, mode, now, 'not_added_to_calendar');
  }
}

function recordEmail(
  world: World,
  record: EventRecord,
  kind: CalendarNotification['kind'],
  to: string,
  mode: SendUpdates,
  now: number,
  reason?: 'not_added_to_calendar',
): void {
  if (to === calendarKey(record.calendarId) || to === record.organizer.email.toLowerCase()) return;
  const n: CalendarNotification = {
    at: new Date(now).toISOString(),
    kind,
    to,
    from: record.organizer.email,
    calendarId: record.calendarId,
    eventId: record.id,
    sendUpdates: mode,
  };
  if (record.fields.summary) n.summary = record.fields.summary;
  if (reason) n.reason = reason;
  world.calendar.notifications.push(n);
}
