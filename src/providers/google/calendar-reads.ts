import { z } from 'zod';
import type { AccessRole, AgendaEvent, CalendarBusy, CalendarInfo, Interval } from '../../core/calendar';
import { type Result, fail, ok } from '../../core/errors';
import { mergeIntervals } from '../../core/calendar';
import { isIanaZone } from '../../tools/calendar/time';
import { parseGoogle, unexpectedAnswer } from './answers';
import { type GoogleEvent, busyByCalendar, freeBusySchema, googleEventSchema, listedEventSchema, toAgendaEvent } from './calendar-answers';
import { type CalendarRequest, type GoogleCalendarDeps, factKey } from './calendar-client';

/** The Calendar v3 reads of the Google calendar adapter, each one googleapis call with its answer validated before use. */

/** A calendar's zone changes rarely; ten minutes of staleness costs at most a mislabelled offset for that long. */
const ZONE_TTL_MS = 10 * 60_000;

/** The connected account's time zone (Calendar settings), memoised per connection. */
export function accountZone(deps: GoogleCalendarDeps, request: CalendarRequest): Promise<Result<string>> {
  return deps.cache.memo(factKey(deps, 'calendar:timezone'), ZONE_TTL_MS, async () => {
    const answer = await request('calendar.settings.get', true, (api, options) => api.settings.get({ setting: 'timezone' }, options));
    if (!answer.ok) return answer;
    const value: unknown = answer.value.data?.value;
    return typeof value === 'string' && isIanaZone(value) ? ok(value) : fail(unexpectedAnswer('calendar.settings.get'));
  });
}

/** One event (events.get), validated. */
export async function readEvent(deps: GoogleCalendarDeps, request: CalendarRequest, calendarId: string, eventId: string): Promise<Result<GoogleEvent>> {
  const answer = await request('calendar.events.get', true, (api, options) => api.events.get({ calendarId, eventId }, options));
  return answer.ok ? parseGoogle(googleEventSchema, answer.value.data, 'calendar.events.get', deps) : answer;
}

/**
 * The longest window one freeBusy request may cover: Google refuses more than 90 × 24 h with 400
 * `timeRangeTooLong` — which a 90-day range crossing the autumn DST change (one hour longer) already is
 * (https://github.com/calcom/cal.diy/pull/11696, /11962). Longer ranges are asked in consecutive windows.
 */
export const FREEBUSY_MAX_SPAN_MS = 90 * 86_400_000;

/** `range` cut into consecutive windows of at most FREEBUSY_MAX_SPAN_MS. */
export function freeBusyWindows(range: Interval): Interval[] {
  const windows: Interval[] = [];
  for (let start = range.start; start < range.end; start += FREEBUSY_MAX_SPAN_MS)
    windows.push({ start, end: Math.min(range.end, start + FREEBUSY_MAX_SPAN_MS) });
  return windows;
}

/**
 * Free/busy of every id (Google takes up to 50 per request) over `range`: one request per window of at most 90 × 24 h
 * (two at most for the tools' 90-day ranges, in parallel), joined per id — busy time merged across the cut, a
 * calendar unreadable in any window unreadable.
 */
export async function queryFreeBusy(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  ids: readonly string[],
  range: Interval,
  zone: string,
): Promise<Result<Map<string, CalendarBusy>>> {
  const windows: Map<string, CalendarBusy>[] = [];
  for (const answer of await Promise.all(freeBusyWindows(range).map((window) => queryFreeBusyWindow(deps, request, ids, window, zone)))) {
    if (!answer.ok) return answer;
    windows.push(answer.value);
  }
  const out = new Map<string, CalendarBusy>();
  for (const id of ids) {
    const parts = windows.map((w) => w.get(id)!);
    const unreadable = parts.find((p) => !p.readable);
    out.set(
      id,
      unreadable ?? {
        readable: true,
        busy: mergeIntervals(
          parts.flatMap((p) => (p.readable ? p.busy : [])),
          range,
        ),
      },
    );
  }
  return ok(out);
}

async function queryFreeBusyWindow(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  ids: readonly string[],
  range: Interval,
  zone: string,
): Promise<Result<Map<string, CalendarBusy>>> {
  const answer = await request('calendar.freebusy.query', true, (api, options) =>
    api.freebusy.query(
      {
        requestBody: {
          timeMin: new Date(range.start).toISOString(),
          timeMax: new Date(range.end).toISOString(),
          timeZone: zone,
          items: ids.map((id) => ({ id })),
        },
      },
      options,
    ),
  );
  if (!answer.ok) return answer;
  const parsed = parseGoogle(freeBusySchema, answer.value.data, 'calendar.freebusy.query', deps);
  return parsed.ok ? busyByCalendar(parsed.value, ids, range) : parsed;
}

const eventsPageSchema = z.object({ items: z.array(listedEventSchema).optional(), nextPageToken: z.string().optional() });

/** Pages of 2,500 (Google's maximum); beyond this many the rest is left to freeBusy, which already counts it busy. */
const MAX_AGENDA_PAGES = 4;

/**
 * The events of the account's primary calendar in the range, recurring ones expanded (singleEvents), for the
 * account's own answer to each. `complete` is false when the list was cut at MAX_AGENDA_PAGES.
 */
export async function listPrimaryEvents(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  range: Interval,
): Promise<Result<{ events: AgendaEvent[]; complete: boolean }>> {
  const events: AgendaEvent[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_AGENDA_PAGES; page++) {
    const token = pageToken;
    const answer = await request('calendar.events.list', true, (api, options) =>
      api.events.list(
        {
          calendarId: 'primary',
          timeMin: new Date(range.start).toISOString(),
          timeMax: new Date(range.end).toISOString(),
          singleEvents: true,
          maxResults: 2500,
          fields: 'items(id,status,start,end,transparency,attendees(self,responseStatus)),nextPageToken',
          ...(token ? { pageToken: token } : {}),
        },
        options,
      ),
    );
    if (!answer.ok) return answer;
    const parsed = parseGoogle(eventsPageSchema, answer.value.data, 'calendar.events.list', deps);
    if (!parsed.ok) return parsed;
    events.push(...(parsed.value.items ?? []).map(toAgendaEvent));
    pageToken = parsed.value.nextPageToken;
    if (!pageToken) return ok({ events, complete: true });
  }
  return ok({ events, complete: false });
}

const CALENDAR_PAGE_SIZE = 250; // Google's largest page
/** 2,500 calendars: far beyond any real list, a bound on one call's work. */
const MAX_CALENDAR_PAGES = 10;

const entrySchema = z.object({
  id: z.string().min(1),
  summary: z.string().nullish(),
  summaryOverride: z.string().nullish(),
  primary: z.boolean().nullish(),
  accessRole: z.string().min(1), // Google has added roles over time (writerWithoutPrivateAccess): passed on as given
  timeZone: z.string().nullish(),
});
const pageSchema = z.object({ items: z.array(entrySchema).nullish(), nextPageToken: z.string().nullish() });

/**
 * The calendars on the account's calendar list (calendarList.list). Google pages the list (at most 250 per page,
 * `nextPageToken` until the last page); the adapter follows the pages itself, up to MAX_CALENDAR_PAGES.
 */
export async function listCalendars(
  deps: GoogleCalendarDeps,
  request: CalendarRequest,
  minAccessRole: AccessRole | undefined,
): Promise<Result<{ calendars: CalendarInfo[]; truncated: boolean }>> {
  const calendars: CalendarInfo[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_CALENDAR_PAGES; page++) {
    const token = pageToken;
    const answer = await request('calendar.calendarList.list', true, (api, options) =>
      api.calendarList.list(
        {
          maxResults: CALENDAR_PAGE_SIZE,
          ...(minAccessRole ? { minAccessRole } : {}),
          ...(token ? { pageToken: token } : {}),
          fields: 'items(id,summary,summaryOverride,primary,accessRole,timeZone),nextPageToken',
        },
        options,
      ),
    );
    if (!answer.ok) return answer;
    const parsed = parseGoogle(pageSchema, answer.value.data, 'calendar.calendarList.list', deps);
    if (!parsed.ok) return parsed;
    for (const e of parsed.value.items ?? []) {
      calendars.push({
        id: e.id,
        name: e.summaryOverride ?? e.summary ?? e.id,
        primary: e.primary === true,
        accessRole: e.accessRole,
        timeZone: e.timeZone ?? null,
      });
    }
    pageToken = parsed.value.nextPageToken ?? undefined;
    if (!pageToken) break;
  }
  // A stable sort: the primary calendar first, the rest as Google listed them.
  calendars.sort((a, b) => Number(b.primary) - Number(a.primary));
  return ok({ calendars, truncated: pageToken !== undefined });
}
