import { z } from 'zod';

/**
 * When a connected calendar's owner works — Google Calendar has no API for working hours, so the Hub keeps them
 * per connection (admins set them through the admin API) and tools fall back to the contract's default. The
 * shape is the contract's `working_hours`: local wall-clock times in the calendar's own time zone.
 */

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface WorkingHours {
  /** "HH:MM", 24-hour, local time. */
  start: string;
  /** "HH:MM", after `start`; "24:00" is the end of the day. */
  end: string;
  /** In week order, no duplicates. */
  days: Weekday[];
}

export const DEFAULT_WORKING_HOURS: Readonly<WorkingHours> = Object.freeze({
  start: '09:00',
  end: '17:00',
  days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as Weekday[],
});

const HH_MM = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
/** Minutes after midnight of "HH:MM" ("24:00" = 1440). */
export const minutesOf = (hhmm: string): number => (hhmm === '24:00' ? 1440 : Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5)));

export const workingHoursSchema = z
  .strictObject({
    start: z.string().regex(HH_MM, 'must be a time as HH:MM (00:00-23:59)'),
    end: z.string().refine((s) => s === '24:00' || HH_MM.test(s), 'must be a time as HH:MM (00:30-24:00)'),
    days: z
      .array(z.enum(WEEKDAYS, { error: `must be one of ${WEEKDAYS.join(', ')}` }))
      .min(1, 'at least one day')
      .max(7)
      .refine((d) => new Set(d).size === d.length, 'a day is listed twice'),
  })
  .refine((w) => minutesOf(w.end) > minutesOf(w.start), { message: 'end must be after start', path: ['end'] })
  .transform((w): WorkingHours => ({ ...w, days: WEEKDAYS.filter((d) => w.days.includes(d)) }));

/** How admins see a calendar connection's hours: what the tools use, and whether an admin set them. */
export const workingHoursView = (stored: WorkingHours | null) => ({
  working_hours: stored ?? { ...DEFAULT_WORKING_HOURS, days: [...DEFAULT_WORKING_HOURS.days] },
  working_hours_source: stored === null ? ('default' as const) : ('admin' as const),
});
