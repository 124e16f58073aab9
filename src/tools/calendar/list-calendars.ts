import { z } from 'zod';
import { ACCESS_ROLES } from '../../core/calendar';
import { type Result, ok } from '../../core/errors';
import { defineTool } from '../types';
import { providerInput } from '../provider-input';

/**
 * calendar_list_calendars: the calendars on the connected account's calendar list, so an agent can pass real ids
 * to calendar_get_availability and calendar_create_event. The adapter follows the vendor's pages itself, up to a
 * bound (2,500 calendars for Google).
 */

const ROLES = ACCESS_ROLES;

const input = z.strictObject({
  min_access_role: z
    .enum(ROLES)
    .optional()
    .describe(
      'Only calendars where the account has at least this role: "writer" for calendars you may create events on, "reader" for those whose events you may read. Default: all.',
    ),
  provider: providerInput.optional(),
});

const calendar = z.object({
  id: z.string().describe('Pass as calendar_id / calendars to the other calendar tools.'),
  summary: z.string().describe("The calendar's name as the account sees it (its own override when it set one)."),
  primary: z.boolean().describe("True for the account's own primary calendar."),
  access_role: z
    .string()
    .describe(
      'freeBusyReader: busy times only; reader: events; writer: create and edit events; owner: also sharing (Google may add roles such as writerWithoutPrivateAccess).',
    ),
  time_zone: z.string().nullable().describe('IANA time zone of the calendar, when the provider gives one (Outlook calendars have none: null).'),
});
const output = z.object({
  calendars: z.array(calendar).describe('Primary first, then in the order the provider lists them.'),
  truncated: z.literal(true).optional().describe('Present when the account has more calendars than one call returns (2,500).'),
});
type Output = z.output<typeof output>;

export const calendarListCalendars = defineTool({
  name: 'calendar_list_calendars',
  version: '1.1.0',
  description:
    'List the calendars the connected account (Google Calendar or Outlook) can see: its own, ones it created, and ones shared with it — each with ' +
    'id, name, whether it is the primary calendar, the access role and time zone. Use the ids with calendar_get_availability ' +
    '(calendars) and calendar_create_event (calendar_id); set min_access_role to "writer" to see only calendars you can add events to.',
  capability: 'calendar',
  // calendarList.list accepts calendar.readonly or calendar (Discovery calendar-v3.json), and the newer
  // calendar.calendarlist(.readonly) scopes Google added since; calendar.readonly is the one every grant the
  // Hub made already holds, so no one has to reconnect.
  permissions: ['calendar.read'],
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const listed = await ctx.calendar.listCalendars(v.min_access_role);
    if (!listed.ok) return listed;
    const calendars = listed.value.calendars.map((c) => ({ id: c.id, summary: c.name, primary: c.primary, access_role: c.accessRole, time_zone: c.timeZone }));
    return ok({ calendars, ...(listed.value.truncated ? { truncated: true as const } : {}) });
  },
});
