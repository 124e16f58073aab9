import type { QueryValue } from '../discovery/schema-check';
import { type World, findAccount } from '../world';
import { calendarKey, findCalendar } from './access';
import type { CalendarNotification, EventRecord } from './state';

/**
 * Guests. An invited sandbox account gets the event on its primary calendar straight away (as Google does for
 * its own users, whatever `sendUpdates` says); emails are only recorded, in `world.calendar.notifications`,
 * for the recipients `sendUpdates` selects — "externalOnly" meaning guests who are not sandbox (Google) accounts.
 */

export type SendUpdates = 'all' | 'externalOnly' | 'none';

/** `sendUpdates`, else the deprecated `sendNotifications` boolean; the API default is to send nothing. */
export function sendUpdatesMode(query: Record<string, QueryValue>): SendUpdates {
  const mode = query.sendUpdates;
  if (mode === 'all' || mode === 'externalOnly' || mode === 'none') return mode;
  return query.sendNotifications === true ? 'all' : 'none';
}

export const attendeeEmails = (record: EventRecord) => (record.fields.attendees ?? []).map((a) => a.email.toLowerCase());

/** Puts the event on each invited sandbox account's primary calendar (un-hiding it for re-invited guests). */
export function syncGuestCopies(world: World, record: EventRecord, reinvited: ReadonlySet<string> = new Set()): void {
  for (const email of attendeeEmails(record)) {
    if (email === calendarKey(record.calendarId) || !findAccount(world, email)) continue;
    const calendar = findCalendar(world, email);
    if (!calendar) continue;
    const existing = calendar.events.get(record.id);
    if (!existing) calendar.events.set(record.id, { record, dismissed: false, reminders: { useDefault: true }, changeSeq: record.changeSeq });
    else if (existing.record === record && reinvited.has(email)) existing.dismissed = false;
    // A different event with the same id already on the guest's calendar: Google cannot guarantee id uniqueness
    // across calendars either; the guest simply does not get a copy.
  }
}

/** Records the emails Google would send about `record` to `recipients` (the organizer never mails itself). */
export function notify(world: World, record: EventRecord, kind: CalendarNotification['kind'], recipients: readonly string[], mode: SendUpdates, now: number): void {
  if (mode === 'none') return;
  const organizer = calendarKey(record.calendarId);
  for (const to of new Set(recipients.map((r) => r.toLowerCase()))) {
    if (to === organizer || to === record.organizer.email.toLowerCase()) continue;
    if (mode === 'externalOnly' && findAccount(world, to)) continue;
    const n: CalendarNotification = { at: new Date(now).toISOString(), kind, to, from: record.organizer.email, calendarId: record.calendarId, eventId: record.id, sendUpdates: mode };
    if (record.fields.summary) n.summary = record.fields.summary;
    world.calendar.notifications.push(n);
  }
}
