import { z } from 'zod';
import { isCivilDate, isIanaZone, offsetDateTimeMs } from './time';

/** Input pieces the calendar tools share, each described for the catalog's JSON Schema. */

export const MAX_RANGE_DAYS = 90;

export const timezoneInput = z
  .string()
  .refine(isIanaZone, { message: 'must be an IANA time zone such as America/New_York' })
  .describe(
    'IANA time zone such as "America/New_York". Dates are whole days in this zone and every returned time carries its offset. Default: the calendar\'s own time zone.',
  );

export const dateOrDateTime = (what: string) =>
  z
    .string()
    .refine((s) => isCivilDate(s) || offsetDateTimeMs(s) !== undefined, {
      message: 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time with an offset (2024-01-15T09:00:00-05:00)',
    })
    .describe(`${what}: a date "YYYY-MM-DD" (a whole day in the time zone; an end date is included) or an RFC 3339 date-time with an offset.`);

export const dateTimeInput = (what: string) =>
  z
    .string()
    .refine((s) => offsetDateTimeMs(s) !== undefined, { message: 'must be an RFC 3339 date-time with an offset, e.g. 2024-01-15T14:00:00-05:00' })
    .describe(`${what}: RFC 3339 date-time with an offset, e.g. "2024-01-15T14:00:00-05:00".`);

// A plain pattern rather than z.email(): the catalog's JSON Schema then needs no `format` support from the
// function-calling API or validator reading it.
export const emailInput = z
  .string()
  .max(254)
  .regex(/^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:".]+$/, 'must be an email address');

/** Calendar and event ids: the shared id alphabets (src/tools/ids.ts). */
export { calendarIdInput, eventIdInput } from '../ids';

export const sendNotificationsInput = z
  .boolean()
  .describe(
    'Email the guests about this (Google "sendUpdates": all when true, none when false). Default: true. With false the ' +
      'organizer emails nobody: guests who do not use Google Calendar never learn of it, and Google Calendar users ' +
      'see a new event on their calendar only if their settings add invitations by themselves (otherwise Google ' +
      'emails them its own invitation and the event appears once they answer). Use false only when the guests already know. ' +
      'On Outlook, which cannot change a meeting without mailing its guests, false is refused (VALIDATION_ERROR) whenever someone would be mailed.',
  );

export const titleInput = z.string().trim().min(1).max(1024).describe('Event title (the summary in Google Calendar, the subject in Outlook).');
export const descriptionInput = z.string().max(8192).describe('Event description / agenda (plain text).');
export const locationInput = z.string().max(1024).describe('Where: an address, a room, or a video-call name such as "Zoom".');
export const attendeesInput = z
  .array(emailInput)
  .max(100)
  .refine((list) => new Set(list.map((e) => e.toLowerCase())).size === list.length, { message: 'an attendee is listed twice' })
  .describe('Email addresses of the guests to invite.');

export const hhmmInput = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time as HH:MM (24-hour)');

/** Google's sendUpdates for the tools' send_notifications (absent = notify: an invitation nobody receives is rarely intended). */
