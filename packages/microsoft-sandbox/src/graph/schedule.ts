import type { RequestHandler, Router } from 'express';
import { NEEDS } from '../identity/scopes';
import { findPerson } from '../world';
import { type GraphCtx, type Handler, mailboxOf } from './context';
import { checkActionBody } from './actions';
import { GE, graphError } from './errors';
import { noFreeBusyAccess, seesFreeBusy, unresolvedSchedule } from './sharing';
import { formatDateTimeTimeZone, ianaOf, parseDateTimeTimeZone } from './time';
import { workingHoursJson } from './users';

/**
 * POST /me/calendar/getSchedule (calendar-getschedule; limits from concepts/outlook-get-free-busy-schedule):
 * "up to 20 entities at once", a period "less than 62 days", availabilityViewInterval 5–1440 minutes (default
 * 30), times in UTC unless Prefer: outlook.timezone. availabilityView has one digit per slot: 0 free (or working
 * elsewhere), 1 tentative, 2 busy, 3 out of office. An address it cannot resolve, or whose calendar the caller
 * may not see (sharing.ts), gets an item with `error` and nothing else.
 * What others see of an event is Exchange Online's default sharing, "free/busy time" only: status and times,
 * no subject or location; the caller's own items carry subject, location and isPrivate.
 * The error codes for breaking the limits are not documented; the sandbox answers ErrorInvalidParameter.
 */

const DIGIT: Record<string, string> = { free: '0', workingElsewhere: '0', unknown: '0', tentative: '1', busy: '2', oof: '3' };
const RANK = ['0', '1', '2', '3'];

function getSchedule(ctx: GraphCtx): ReturnType<Handler> {
  const params = checkActionBody(ctx, 'getSchedule', 'calendar');
  if (params) return params;
  const body = ctx.req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return GE.badRequest('Empty Payload. JSON content expected.');
  // Parameter names are case-insensitive here: the CSDL declares Schedules/StartTime…, the docs write schedules.
  const get = (name: string) => Object.entries(body).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const schedules = get('schedules');
  if (!Array.isArray(schedules) || schedules.length === 0 || schedules.some((s) => typeof s !== 'string'))
    return graphError(400, 'ErrorInvalidParameter', "The parameter 'Schedules' is missing or empty.");
  if (schedules.length > 20) return graphError(400, 'ErrorInvalidParameter', 'getSchedule can look up at most 20 entities at once.');
  const start = parseDateTimeTimeZone(get('startTime'), 'startTime');
  if (typeof start !== 'number') return start;
  const end = parseDateTimeTimeZone(get('endTime'), 'endTime');
  if (typeof end !== 'number') return end;
  if (end <= start) return graphError(400, 'ErrorInvalidParameter', 'The EndTime must be after the StartTime.');
  if (end - start >= 62 * 86_400_000) return graphError(400, 'ErrorInvalidParameter', 'The time period to look up must be less than 62 days.');
  const rawInterval = get('availabilityViewInterval');
  const interval = rawInterval === undefined ? 30 : Number(rawInterval);
  if (!Number.isInteger(interval) || interval < 5 || interval > 1440)
    return graphError(400, 'ErrorInvalidParameter', 'availabilityViewInterval must be between 5 and 1440 minutes.');
  const asked = ctx.prefs.get('outlook.timezone');
  const zone = asked && ianaOf(asked) ? asked : 'UTC';
  if (asked && zone === asked) ctx.applied.push(`outlook.timezone="${asked}"`);
  const slots = Math.ceil((end - start) / (interval * 60_000));
  const now = ctx.world.clock.now();
  const value = (schedules as string[]).map((address) => {
    const person = findPerson(ctx.world, address);
    if (!person || person.tenantId !== ctx.caller.tenantId) return unresolvedSchedule(address);
    if (!seesFreeBusy(person, ctx.caller)) return noFreeBusyAccess(address);
    const own = person.id === ctx.caller.id;
    const events = mailboxOf(ctx.world, person)
      .events.filter((e) => e.visibleAt <= now && !e.isCancelled && e.showAs !== 'free' && e.start < end && e.end > start)
      .sort((a, b) => a.start - b.start);
    const view = Array.from({ length: slots }, (_, i) => {
      const s = start + i * interval * 60_000;
      const f = s + interval * 60_000;
      return events
        .filter((e) => e.start < f && e.end > s)
        .reduce((best, e) => (RANK.indexOf(DIGIT[e.showAs] ?? '0') > RANK.indexOf(best) ? (DIGIT[e.showAs] ?? '0') : best), '0');
    }).join('');
    return {
      scheduleId: address,
      availabilityView: view,
      scheduleItems: events.map((e) => ({
        ...(own ? { isPrivate: e.sensitivity === 'private', subject: e.subject, location: e.location } : {}),
        status: e.showAs,
        start: formatDateTimeTimeZone(e.start, zone),
        end: formatDateTimeTimeZone(e.end, zone),
      })),
      workingHours: workingHoursJson(person),
    };
  });
  return {
    status: 200,
    type: 'Collection(microsoft.graph.scheduleInformation)',
    body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#Collection(microsoft.graph.scheduleInformation)`, value },
  };
}

export function mountSchedule(router: Router, route: (op: string, needs: readonly string[], h: Handler) => RequestHandler) {
  router.post('/calendar/getSchedule', route('calendar.getSchedule', NEEDS.calendarsRead, getSchedule));
}
