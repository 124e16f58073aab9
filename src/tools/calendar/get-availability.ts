import { z } from 'zod';
import { fail, ok } from '../../core/errors';
import { type ValidationIssue, invalidInputs } from '../../core/validation';
import { DEFAULT_WORKING_HOURS, WEEKDAYS } from '../../core/working-hours';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { MAX_RANGE_DAYS, calendarIdInput, dateOrDateTime, timezoneInput } from './inputs';
import { resolveRange, resolveRangeEarly, zoneFormatter } from './time';

const MAX_CALENDARS = 50;

const input = z.strictObject({
  start_date: dateOrDateTime('First day (or instant) to report'),
  end_date: dateOrDateTime(`Last day (inclusive) or end instant to report; at most ${MAX_RANGE_DAYS} days after start_date`),
  timezone: timezoneInput.optional(),
  calendars: z
    .array(calendarIdInput)
    .min(1)
    .max(MAX_CALENDARS)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, { message: 'a calendar is listed twice' })
    .optional()
    .describe(
      'Calendars to check: "primary" and/or calendar ids or people\'s email addresses (their calendars must be shared with the connected account). Default ["primary"].',
    ),
  provider: providerInput.optional(),
});

const output = z.object({
  busy_periods: z.array(z.object({ start: z.string(), end: z.string(), calendar: z.string() })),
  working_hours: z.object({
    start: z.string(),
    end: z.string(),
    days: z.array(z.enum(WEEKDAYS)),
    timezone: z.string().describe("The zone the working hours are local times of: the connected calendar's."),
  }),
  errors: z.array(z.object({ calendar: z.string(), reason: z.string() })).optional(),
});

/** Free/busy for scheduling: one freeBusy request for every calendar asked about. */
export const calendarGetAvailability = defineTool({
  name: 'calendar_get_availability',
  version: '1.1.0',
  description:
    "Get busy time periods of one or more calendars (default: the connected account's primary calendar) " +
    "between two dates, plus the account owner's working hours. Use it before proposing or booking a meeting. " +
    'Busy periods are sorted by start and name their calendar; times are RFC 3339 with the offset of `timezone` ' +
    "(default: the calendar's zone). Calendars the provider could not read are listed under `errors` — treat them as " +
    'unknown, never as free. To get ranked meeting suggestions instead, use calendar_find_optimal_times.',
  capability: 'calendar',
  permissions: ['calendar.read'],
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, args) => {
    const paths = { start: 'inputs.start_date', end: 'inputs.end_date' };
    const invalid = (issues: ValidationIssue[]) => fail(invalidInputs('calendar_get_availability', issues));
    const early = resolveRangeEarly(args.start_date, args.end_date, args.timezone, paths, MAX_RANGE_DAYS);
    if (early && !early.ok) return invalid(early.issues);
    const calendarZone = await ctx.calendar.timeZone();
    if (!calendarZone.ok) return calendarZone;
    const zone = args.timezone ?? calendarZone.value;
    const resolved = early ?? resolveRange(args.start_date, args.end_date, zone, paths, MAX_RANGE_DAYS);
    if (!resolved.ok) return invalid(resolved.issues);
    const range = { start: resolved.range.startMs, end: resolved.range.endMs };

    const ids = args.calendars ?? ['primary'];
    const busy = await ctx.calendar.freeBusy(ids, range, zone);
    if (!busy.ok) return busy;
    const periods: { start: number; end: number; calendar: string }[] = [];
    const errors: { calendar: string; reason: string }[] = [];
    for (const id of ids) {
      const entry = busy.value.get(id)!;
      if (!entry.readable) errors.push({ calendar: id, reason: entry.reason });
      else for (const b of entry.busy) periods.push({ ...b, calendar: id });
    }
    periods.sort((a, b) => a.start - b.start || a.end - b.end || a.calendar.localeCompare(b.calendar));
    const hours = ctx.connection?.workingHours ?? DEFAULT_WORKING_HOURS;
    const format = zoneFormatter(zone);
    return ok({
      busy_periods: periods.map((p) => ({ start: format(p.start), end: format(p.end), calendar: p.calendar })),
      working_hours: { start: hours.start, end: hours.end, days: [...hours.days], timezone: calendarZone.value },
      ...(errors.length > 0 ? { errors } : {}),
    });
  },
});
