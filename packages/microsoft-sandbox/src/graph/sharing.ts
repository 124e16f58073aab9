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
 * empty (free) one: EWS's ResponseCode reference gives ErrorNoFreeBusyAccess, "the caller does not have
 * free/busy viewing rights on the Calendar folder in question", and Graph's scheduleInformation carries the
 * availability service's per-schedule failure as `error` (a freeBusyError: message, responseCode) with no
 * availabilityView or scheduleItems — as microsoftgraph/microsoft-graph-docs#11225 shows for an unresolved address.
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
  error: {
    message: `Microsoft.Exchange.InfoWorker.Common.Availability.NoFreeBusyAccessException: No free/busy access to '${scheduleId}'.`,
    responseCode: 'ErrorNoFreeBusyAccess',
  },
});

/** A schedule the availability service cannot resolve to a mailbox (#11225's shape: the error alone). */
export const unresolvedSchedule = (scheduleId: string) => ({
  scheduleId,
  error: { message: `The user '${scheduleId}' could not be found.`, responseCode: 'ErrorMailRecipientNotFound' },
});
