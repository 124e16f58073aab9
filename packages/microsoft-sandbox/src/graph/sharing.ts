import type { CalendarSharing, Person } from '../world';

/**
 * Who may see a person's free/busy through getSchedule.
 *
 * Exchange Online's default calendar carries a permission for "My Organization" — everyone in the tenant not
 * listed by name — and one per person it is shared with (learn.microsoft.com/graph/api/resources/calendarpermission:
 * role is a calendarRoleType, "none", "freeBusyRead", "limitedRead", "read", "write", …; "My Organization" is the
 * entry that cannot be removed, only changed: isRemovable false, allowedRoles from none up). Its default is
 * free/busy for the organisation — calendar-list-calendarpermissions' example answers "My Organization" with
 * role freeBusyRead, Exchange's `Default` user holding AvailabilityOnly — and an owner may set it to none
 * (calendarpermission-update, `Set-MailboxFolderPermission -User Default -AccessRights None`, or Outlook's
 * sharing dialog), after which only the people the calendar names see anything.
 *
 * Where the caller may not see it, the availability service answers that schedule with an error, not with an
 * empty (free) one: a NoFreeBusyAccessException, "The caller does not have access to free/busy data.", EWS's
 * ResponseCode ErrorNoFreeBusyAccess — the availability service's answer word for word in
 * learn.microsoft.com/archive/blogs/ivfranji/client-experience-free-busy-not-working; the code is listed in EWS's
 * ResponseCodeType, learn.microsoft.com/previous-versions/office/developer/exchange-server-2010/bb426458.
 * Graph's scheduleInformation carries such a per-schedule failure as `error` alone — a freeBusyError whose
 * responseCode is the availability service's numeric code and whose message is its description, no
 * availabilityView, no scheduleItems — as github.com/microsoftgraph/microsoft-graph-docs/issues/11225 shows, word
 * for word, for an address it cannot resolve ("Unable to resolve e-mail address … to an Active Directory
 * object.", "5009").
 *
 * No public source for the number of the no-access case: 5037 was taken from Microsoft's hybrid free/busy
 * troubleshooting material (the Exchange team's "Demystifying Hybrid Free/Busy: Finding errors and
 * troubleshooting", techcommunity.microsoft.com), but no public page or Graph answer found shows 5037 beside this
 * message. It makes the sandbox no kinder: the Hub reads every error item as unreadable, whatever its code
 * (src/providers/microsoft/calendar-free-busy.ts), and names only the codes it knows.
 */

export const CALENDAR_ROLES = [
  'none',
  'freeBusyRead',
  'limitedRead',
  'read',
  'write',
  'delegateWithoutPrivateEventAccess',
  'delegateWithPrivateEventAccess',
  'custom',
] as const;
export type CalendarRole = (typeof CALENDAR_ROLES)[number];

export const defaultSharing = (): CalendarSharing => ({ myOrganization: 'freeBusyRead', people: new Map() });

/** Whether `caller` (of the same tenant) may see `owner`'s free/busy. */
export function seesFreeBusy(owner: Person, caller: Person): boolean {
  if (owner.id === caller.id) return true;
  return (owner.calendarSharing.people.get(caller.id) ?? owner.calendarSharing.myOrganization) !== 'none';
}

/** The schedule of someone whose free/busy the caller may not see. */
export const noFreeBusyAccess = (scheduleId: string) => ({
  scheduleId,
  error: { message: 'The caller does not have access to free/busy data.', responseCode: '5037' },
});

/** A schedule the availability service cannot resolve to a mailbox (#11225, word for word). */
export const unresolvedSchedule = (scheduleId: string) => ({
  scheduleId,
  error: { message: `Unable to resolve e-mail address ${scheduleId} to an Active Directory object.`, responseCode: '5009' },
});
