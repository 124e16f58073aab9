import { z } from 'zod';
import { type Result, ok } from '../core/errors';
import { timezoneInput } from './calendar/inputs';
import { formatInZone } from './calendar/time';
import { defineTool } from './types';

/**
 * hub_current_time: "now" in an IANA zone, so an agent can tell what "tomorrow" or "next Monday" means for the
 * person it acts for. With `timezone` it needs nothing else (no connection, no Google call). Without one it uses
 * the connected Google Calendar's zone (Calendar settings, cached 10 minutes per connection like the calendar
 * tools'); with no calendar connected that is INTEGRATION_NOT_CONNECTED, never a guess: a silently assumed UTC
 * is exactly the off-by-a-day error this tool exists to prevent.
 */

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

const input = z.strictObject({
  timezone: timezoneInput
    .optional()
    .describe('IANA time zone such as "America/New_York". Default: the time zone of the connected calendar (an error if none is connected).'),
});

const output = z.object({
  now: z.string().describe('The current time in the zone, ISO 8601 with its UTC offset, whole seconds: "2024-01-15T09:30:00-05:00".'),
  date: z.string().describe('The local date, YYYY-MM-DD.'),
  weekday: z.enum(WEEKDAYS).describe('The local day of the week.'),
  timezone: z.string().describe('The IANA zone used.'),
  utc_offset: z.string().describe('The zone\'s offset from UTC right now, "+HH:MM" or "-HH:MM" (it changes with daylight saving time).'),
  utc: z.string().describe('The same instant in UTC, ISO 8601.'),
  source: z.enum(['input', 'calendar']).describe('Where the zone came from: the timezone input or the connected calendar.'),
});
type Output = z.output<typeof output>;

/** Pure: the answer for instant `ms` in `zone`. */
export function timeIn(ms: number, zone: string, source: Output['source']): Output {
  const now = formatInZone(Math.floor(ms / 1000) * 1000, zone); // 2024-01-15T09:30:00-05:00
  const date = now.slice(0, 10);
  return {
    now,
    date,
    weekday: WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!,
    timezone: zone,
    utc_offset: now.slice(19),
    utc: new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    source,
  };
}

export const hubCurrentTime = defineTool({
  name: 'hub_current_time',
  version: '1.0.0',
  description:
    "The current date and time in a time zone: ISO 8601 with offset, the local date, the weekday and the zone's current UTC offset. " +
    'Call it before reasoning about "today", "tomorrow" or "next week". Pass timezone (IANA, e.g. "Europe/Madrid") when you know ' +
    "where the person is; without it the connected calendar's time zone is used.",
  capability: 'calendar',
  // Only without `timezone`: Calendar settings.get accepts calendar.settings.readonly (Discovery calendar-v3.json),
  // which the calendar.readonly every Hub grant holds implies.
  permissions: ['calendar.settings.read'],
  sideEffects: 'reads',
  input,
  output,
  needsConnection: (v) => v.timezone === undefined,
  run: async (ctx, v): Promise<Result<Output>> => {
    if (v.timezone !== undefined) return ok(timeIn(ctx.now(), v.timezone, 'input'));
    const zone = await ctx.calendar.timeZone();
    return zone.ok ? ok(timeIn(ctx.now(), zone.value, 'calendar')) : zone; // now = after Google answered
  },
});
