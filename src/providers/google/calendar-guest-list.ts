import type { GoogleAttendee } from './calendar-answers';

/**
 * The guest list to send when an agent names who should be invited. Google's events.patch replaces the whole
 * `attendees` array and reads an entry without responseStatus as needsAction — so writing bare emails wipes
 * every reply and, with sendUpdates=all, invites everyone again (nspady/google-calendar-mcp#148,
 * openonion/connectonion#1558). Guests who stay are written back as Google holds them (their answer, comment,
 * additional guests, optional flag, name); new guests go as bare emails (needsAction).
 */

export type GuestEntry = Omit<GoogleAttendee, 'self'> | { email: string };

export function rewriteGuestList(current: readonly GoogleAttendee[], emails: readonly string[]): GuestEntry[] {
  const byEmail = new Map(current.map((a) => [a.email.toLowerCase(), a] as const));
  return emails.map((email) => {
    const kept = byEmail.get(email.toLowerCase());
    if (!kept) return { email };
    const { self: _self, ...entry } = kept; // read-only: Google derives it per calendar
    return entry;
  });
}
