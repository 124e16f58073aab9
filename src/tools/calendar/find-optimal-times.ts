import { z } from 'zod';
import { fail, hubError, ok } from '../../core/errors';
import { type ValidationIssue, invalidInputs } from '../../core/validation';
import { DEFAULT_WORKING_HOURS, minutesOf } from '../../core/working-hours';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';
import { MAX_RANGE_DAYS, dateOrDateTime, emailInput, hhmmInput, timezoneInput } from './inputs';
import { organizerTime } from './organizer-events';
import { type AttendeeBusy, findSlots } from './slots';
import { resolveRange, resolveRangeEarly, zoneFormatter } from './time';
import { workingWindows } from './windows';

const MAX_ATTENDEES = 49; // freeBusy takes 50 calendars: the organizer's and these

const input = z.strictObject({
  duration_minutes: z.number().int().min(5).max(720).describe('Meeting length in minutes (5–720).'),
  attendees: z
    .array(emailInput)
    .max(MAX_ATTENDEES)
    .refine((list) => new Set(list.map((e) => e.toLowerCase())).size === list.length, { message: 'an attendee is listed twice' })
    .describe('Email addresses of the other participants; their calendars must share free/busy with the connected account.'),
  date_range: z
    .strictObject({ start: dateOrDateTime('Search from'), end: dateOrDateTime(`Search until (inclusive day); at most ${MAX_RANGE_DAYS} days`) })
    .describe("Where to search, in the organizer's time zone (or `timezone`)."),
  preferences: z
    .strictObject({
      preferred_hours: z
        .strictObject({ start: hhmmInput, end: hhmmInput })
        .refine((h) => minutesOf(h.end) > minutesOf(h.start), { message: 'end must be after start', path: ['end'] })
        .optional()
        .describe('Local hours to favour, e.g. {"start": "10:00", "end": "16:00"}; slots outside them rank lower.'),
      avoid_mondays: z.boolean().optional().describe('Rank Monday slots lower.'),
    })
    .optional(),
  timezone: timezoneInput.optional(),
  max_results: z.number().int().min(1).max(20).optional().describe('How many suggestions to return (1–20, default 5).'),
  provider: providerInput.optional(),
});

const output = z.object({
  suggestions: z.array(
    z.object({
      start: z.string(),
      end: z.string(),
      score: z.number().min(0).max(1),
      conflicts: z.array(z.object({ attendee: z.string(), type: z.enum(['busy', 'tentative', 'unknown']) })),
    }),
  ),
});

export const calendarFindOptimalTimes = defineTool({
  name: 'calendar_find_optimal_times',
  version: '1.1.0',
  description:
    'Suggest meeting times for the connected account (the organizer) and the given attendees: slots of ' +
    "duration_minutes on a 15-minute grid inside the organizer's working hours, in the organizer's time zone, " +
    'where the organizer is free. Best first, spread over several days; score 0–1. Slots with an empty ' +
    '`conflicts` list suit everyone and always rank first. Conflict types: busy (that attendee is busy), ' +
    "tentative (the organizer has an unanswered or maybe event then), unknown (that attendee's calendar is not " +
    'shared with the organizer, so their availability is not known). Book a suggestion with calendar_create_event.',
  capability: 'calendar',
  permissions: ['calendar.read'],
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, args) => {
    const paths = { start: 'inputs.date_range.start', end: 'inputs.date_range.end' };
    const invalid = (issues: ValidationIssue[]) => fail(invalidInputs('calendar_find_optimal_times', issues));
    const { start, end } = args.date_range;
    const early = resolveRangeEarly(start, end, args.timezone, paths, MAX_RANGE_DAYS);
    if (early && !early.ok) return invalid(early.issues);
    let zone = args.timezone;
    if (zone === undefined) {
      const found = await ctx.calendar.timeZone();
      if (!found.ok) return found;
      zone = found.value;
    }
    const resolved = early ?? resolveRange(start, end, zone, paths, MAX_RANGE_DAYS);
    if (!resolved.ok) return invalid(resolved.issues);

    const now = ctx.now();
    // An empty answer would read as "no time fits": say instead that the whole range is behind us.
    if (resolved.range.endMs <= now) return invalid([{ path: paths.end, message: 'the range has already passed; suggestions start from now' }]);
    const hours = ctx.connection?.workingHours ?? DEFAULT_WORKING_HOURS;
    const searched = { start: Math.max(resolved.range.startMs, now), end: resolved.range.endMs };
    const windows = searched.end > searched.start ? workingWindows(hours, zone, searched, args.preferences?.preferred_hours ?? null) : [];
    if (windows.length === 0) return ok({ suggestions: [] }); // nothing to ask the vendor about
    const range = { start: windows[0]!.start, end: windows.at(-1)!.end };

    const organizer = (ctx.connection?.accountEmail ?? 'primary').toLowerCase();
    const attendees = args.attendees.map((e) => e.toLowerCase()).filter((e) => e !== organizer);
    const [busy, listed] = await Promise.all([ctx.calendar.freeBusy(['primary', ...attendees], range, zone), ctx.calendar.agenda(range)]);
    if (!busy.ok) return busy;
    if (!listed.ok) return listed;
    const own = busy.value.get('primary')!;
    if (!own.readable) {
      return fail(
        hubError('EXTERNAL_API_ERROR', `${ctx.connection?.displayName ?? 'The calendar provider'} could not report the organizer's own free/busy time`, {
          retryable: true,
          details: { reason: own.reason },
        }),
      );
    }
    const time = organizerTime(listed.value.events, own.busy, zone, range);
    const attendeeBusy: AttendeeBusy[] = attendees.map((email) => {
      const entry = busy.value.get(email)!;
      return entry.readable ? { email, busy: entry.busy } : { email, unknown: true };
    });
    const suggestions = findSlots({
      windows,
      durationMinutes: args.duration_minutes,
      notBefore: now,
      organizer,
      organizerBusy: time.firm,
      organizerTentative: time.tentative,
      attendees: attendeeBusy,
      avoidMondays: args.preferences?.avoid_mondays ?? false,
      maxResults: args.max_results ?? 5,
    });
    const format = zoneFormatter(zone);
    return ok({
      suggestions: suggestions.map((s) => ({
        start: format(s.start),
        end: format(s.end),
        score: Math.round(s.score * 100) / 100,
        conflicts: s.conflicts,
      })),
    });
  },
});
