import { z } from 'zod';
import { type Result, fail, ok } from '../../core/errors';
import { connectionFactKey } from '../tool-cache';
import type { ToolContext } from '../types';
import { parseGoogle, unexpectedAnswer } from '../google-answer';
import { type CalendarBusy, type GoogleEvent, type Interval, busyByCalendar, freeBusySchema, googleEventSchema, mergeIntervals } from './mapping';
import { isIanaZone } from './time';

/**
 * The Calendar API reads the tools share, each one googleapis call through ctx.callGoogle (token, retries,
 * breaker, api_calls) with its answer validated before use.
 */

const op = (operation: string) => ({ integration: 'google_calendar' as const, operation, idempotent: true });

/** A calendar's zone changes rarely; ten minutes of staleness costs at most a mislabelled offset for that long. */
const ZONE_TTL_MS = 10 * 60_000;

/** The connected account's time zone (Calendar settings), memoised per connection. */
export async function accountZone(ctx: ToolContext): Promise<Result<string>> {
  return ctx.cache.memo(connectionFactKey(ctx.connection!, 'calendar:timezone'), ZONE_TTL_MS, async () => {
    const answer = await ctx.callGoogle(op('calendar.settings.get'), (signal, auth) =>
      ctx.google.calendar(auth).settings.get({ setting: 'timezone' }, { signal, retry: false }),
    );
    if (!answer.ok) return answer;
    const value: unknown = answer.value.data?.value;
    return typeof value === 'string' && isIanaZone(value) ? ok(value) : fail(unexpectedAnswer('calendar.settings.get'));
  });
}

/** One event (events.get), validated. */
export async function getEvent(ctx: ToolContext, calendarId: string, eventId: string): Promise<Result<GoogleEvent>> {
  const answer = await ctx.callGoogle(op('calendar.events.get'), (signal, auth) =>
    ctx.google.calendar(auth).events.get({ calendarId, eventId }, { signal, retry: false }),
  );
  return answer.ok ? parseGoogle(googleEventSchema, answer.value.data, 'calendar.events.get', ctx) : answer;
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
export async function queryFreeBusy(ctx: ToolContext, ids: readonly string[], range: Interval, zone: string): Promise<Result<Map<string, CalendarBusy>>> {
  const windows: Map<string, CalendarBusy>[] = [];
  for (const answer of await Promise.all(freeBusyWindows(range).map((window) => queryFreeBusyWindow(ctx, ids, window, zone)))) {
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

async function queryFreeBusyWindow(ctx: ToolContext, ids: readonly string[], range: Interval, zone: string): Promise<Result<Map<string, CalendarBusy>>> {
  const answer = await ctx.callGoogle(op('calendar.freebusy.query'), (signal, auth) =>
    ctx.google.calendar(auth).freebusy.query(
      {
        requestBody: {
          timeMin: new Date(range.start).toISOString(),
          timeMax: new Date(range.end).toISOString(),
          timeZone: zone,
          items: ids.map((id) => ({ id })),
        },
      },
      { signal, retry: false },
    ),
  );
  if (!answer.ok) return answer;
  const parsed = parseGoogle(freeBusySchema, answer.value.data, 'calendar.freebusy.query', ctx);
  return parsed.ok ? busyByCalendar(parsed.value, ids, range) : parsed;
}

const listedEventSchema = googleEventSchema.pick({ id: true, status: true, start: true, end: true }).extend({
  transparency: z.string().optional(),
  attendees: z.array(z.object({ self: z.boolean().optional(), responseStatus: z.string().optional() })).optional(),
});
export type ListedEvent = z.infer<typeof listedEventSchema>;
const eventsPageSchema = z.object({ items: z.array(listedEventSchema).optional(), nextPageToken: z.string().optional() });

/** Pages of 2,500 (Google's maximum); beyond this many the rest is left to freeBusy, which already counts it busy. */
const MAX_PAGES = 4;

/**
 * The events of the account's primary calendar in the range, recurring ones expanded (singleEvents), for the
 * account's own answer to each. `complete` is false when the list was cut at MAX_PAGES.
 */
export async function listPrimaryEvents(ctx: ToolContext, range: Interval): Promise<Result<{ events: ListedEvent[]; complete: boolean }>> {
  const events: ListedEvent[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const token = pageToken;
    const answer = await ctx.callGoogle(op('calendar.events.list'), (signal, auth) =>
      ctx.google.calendar(auth).events.list(
        {
          calendarId: 'primary',
          timeMin: new Date(range.start).toISOString(),
          timeMax: new Date(range.end).toISOString(),
          singleEvents: true,
          maxResults: 2500,
          fields: 'items(id,status,start,end,transparency,attendees(self,responseStatus)),nextPageToken',
          ...(token ? { pageToken: token } : {}),
        },
        { signal, retry: false },
      ),
    );
    if (!answer.ok) return answer;
    const parsed = parseGoogle(eventsPageSchema, answer.value.data, 'calendar.events.list', ctx);
    if (!parsed.ok) return parsed;
    events.push(...(parsed.value.items ?? []));
    pageToken = parsed.value.nextPageToken;
    if (!pageToken) return ok({ events, complete: true });
  }
  return ok({ events, complete: false });
}
