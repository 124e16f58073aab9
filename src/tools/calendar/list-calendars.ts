import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import { googleScope } from '../../integrations/integrations';
import { parseGoogle } from '../google-answer';
import { defineTool } from '../types';

/**
 * calendar_list_calendars: the calendars on the connected account's calendar list (calendarList.list), so an
 * agent can pass real ids to calendar_get_availability and calendar_create_event. Google pages the list (at most
 * 250 per page, `nextPageToken` until the last page); the tool follows the pages itself, up to MAX_PAGES.
 */

const ROLES = ['freeBusyReader', 'reader', 'writer', 'owner'] as const;
const PAGE_SIZE = 250; // Google's largest page
/** 2,500 calendars: far beyond any real list, a bound on one call's work. */
const MAX_PAGES = 10;

const input = z.strictObject({
  min_access_role: z
    .enum(ROLES)
    .optional()
    .describe(
      'Only calendars where the account has at least this role: "writer" for calendars you may create events on, "reader" for those whose events you may read. Default: all.',
    ),
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
  time_zone: z.string().nullable().describe('IANA time zone of the calendar, when Google gives one.'),
});
const output = z.object({
  calendars: z.array(calendar).describe('Primary first, then in the order Google lists them.'),
  truncated: z.literal(true).optional().describe('Present when the account has more calendars than one call returns (2,500).'),
});
type Output = z.output<typeof output>;

const entrySchema = z.object({
  id: z.string().min(1),
  summary: z.string().nullish(),
  summaryOverride: z.string().nullish(),
  primary: z.boolean().nullish(),
  accessRole: z.string().min(1), // Google has added roles over time (writerWithoutPrivateAccess): passed on as given
  timeZone: z.string().nullish(),
});
const pageSchema = z.object({ items: z.array(entrySchema).nullish(), nextPageToken: z.string().nullish() });

export const calendarListCalendars = defineTool({
  name: 'calendar_list_calendars',
  version: '1.0.0',
  description:
    'List the calendars the connected Google account can see: its own, ones it created, and ones shared with it — each with ' +
    'id, name, whether it is the primary calendar, the access role and time zone. Use the ids with calendar_get_availability ' +
    '(calendars) and calendar_create_event (calendar_id); set min_access_role to "writer" to see only calendars you can add events to.',
  integration: 'google_calendar',
  // calendarList.list accepts calendar.readonly or calendar (Discovery calendar-v3.json), and the newer
  // calendar.calendarlist(.readonly) scopes Google added since; calendar.readonly is the one every grant the
  // Hub made already holds, so no one has to reconnect.
  requiredScopes: [googleScope('calendar.readonly')],
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const calendars: Output['calendars'] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await ctx.callGoogle({ integration: 'google_calendar', operation: 'calendar.calendarList.list', idempotent: true }, (signal, auth) =>
        ctx.google.calendar(auth).calendarList.list(
          {
            maxResults: PAGE_SIZE,
            ...(v.min_access_role ? { minAccessRole: v.min_access_role } : {}),
            ...(pageToken ? { pageToken } : {}),
            fields: 'items(id,summary,summaryOverride,primary,accessRole,timeZone),nextPageToken',
          },
          { signal, retry: false },
        ),
      );
      if (!answer.ok) return answer;
      const parsed = parseGoogle(pageSchema, answer.value.data, 'calendar.calendarList.list', ctx);
      if (!parsed.ok) return parsed;
      for (const e of parsed.value.items ?? []) {
        calendars.push({
          id: e.id,
          summary: e.summaryOverride ?? e.summary ?? e.id,
          primary: e.primary === true,
          access_role: e.accessRole,
          time_zone: e.timeZone ?? null,
        });
      }
      pageToken = parsed.value.nextPageToken ?? undefined;
      if (!pageToken) break;
    }
    // A stable sort: the primary calendar first, the rest as Google listed them.
    calendars.sort((a, b) => Number(b.primary) - Number(a.primary));
    return ok({ calendars, ...(pageToken ? { truncated: true as const } : {}) });
  },
});
