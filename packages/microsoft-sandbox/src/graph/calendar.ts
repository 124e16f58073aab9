import type { Router } from 'express';
import { NEEDS } from '../identity/scopes';
import { type GraphCtx, type Handler } from './context';
import { graphError } from './errors';
import { type Calendar, defaultCalendar } from './mailbox';
import { type ListSpec, listAnswer, parseQuery, queryParam } from './odata';
import { eventJson, outputZone } from './serialize';
import { type Route, entity, known, now, pickCalendar, pickEvent } from './calendar-common';
import { create, remove, respond, update } from './event-write';

/**
 * Calendars and events (calendar-get, user-list-events, user-post-events, event-get, event-update,
 * event-delete, user-list-calendarview, event-accept/decline/tentativelyaccept). Meeting invitations reach
 * attendees who have sandbox mailboxes as their own copy of the event; their answers update the organizer's.
 */

function calendarJson(ctx: GraphCtx, c: Calendar) {
  return {
    '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/calendars/$entity`,
    id: c.id,
    name: c.name,
    color: c.color,
    hexColor: '',
    isDefaultCalendar: c.isDefault,
    changeKey: c.changeKey,
    canShare: true,
    canViewPrivateItems: true,
    canEdit: true,
    allowedOnlineMeetingProviders: ['teamsForBusiness'],
    defaultOnlineMeetingProvider: 'teamsForBusiness',
    isTallyingResponses: true,
    isRemovable: !c.isDefault,
    owner: { name: ctx.owner.displayName, address: ctx.owner.userPrincipalName },
  };
}

const listSpec = (ctx: GraphCtx, path: string): ListSpec => ({
  entity: 'event',
  defaultTop: 10,
  maxTop: 1000,
  contextPath: `users('${ctx.owner.id}')/${path}`,
});

/**
 * `$search` works on message collections only (search-query-parameter: "You can currently search only message
 * and person collections"); Graph's code for asking it of events is not documented — refused, never ignored.
 */
function refuseSearch(ctx: GraphCtx) {
  return queryParam(ctx, '$search') === undefined
    ? undefined
    : graphError(400, 'BadRequest', "The query parameter '$search' is not supported on this resource.");
}

function visibleEvents(ctx: GraphCtx, cal: Calendar | undefined) {
  return ctx.box.events.filter((e) => e.visibleAt <= now(ctx) && (!cal || e.calendarId === cal.id));
}

function list(ctx: GraphCtx): ReturnType<Handler> {
  const cal = ctx.req.params.calendarId || ctx.req.path.includes('/calendar/') ? pickCalendar(ctx) : undefined;
  if (cal && 'code' in cal) return cal;
  const noSearch = refuseSearch(ctx);
  if (noSearch) return noSearch;
  const spec = listSpec(ctx, 'events');
  const query = parseQuery(ctx, spec);
  if ('code' in query) return query;
  const zone = outputZone(ctx, known);
  return listAnswer(
    ctx,
    spec,
    visibleEvents(ctx, cal).map((e) => eventJson(ctx, e, zone)),
    query,
  );
}

/** calendarView: occurrences overlapping [startDateTime, endDateTime); both required (user-list-calendarview). */
function calendarView(ctx: GraphCtx): ReturnType<Handler> {
  const cal = ctx.req.params.calendarId || ctx.req.path.includes('/calendar/') ? pickCalendar(ctx) : undefined;
  if (cal && 'code' in cal) return cal;
  const s = queryParam(ctx, 'startDateTime') ?? queryParam(ctx, 'startdatetime');
  const en = queryParam(ctx, 'endDateTime') ?? queryParam(ctx, 'enddatetime');
  if (!s || !en)
    return graphError(
      400,
      'ErrorInvalidParameter',
      'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.',
    );
  // "The values… are interpreted using the timezone offset… or UTC if no offset" (user-list-calendarview).
  const parse = (v: string) => Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(v) ? v : `${v}Z`);
  const from = parse(s);
  const to = parse(en);
  if (Number.isNaN(from) || Number.isNaN(to))
    return graphError(400, 'ErrorInvalidParameter', 'The value of the parameter StartDateTime or EndDateTime is invalid.');
  const noSearch = refuseSearch(ctx);
  if (noSearch) return noSearch;
  const spec = listSpec(ctx, 'calendarView');
  const query = parseQuery(ctx, spec);
  if ('code' in query) return query;
  const zone = outputZone(ctx, known);
  const rows = visibleEvents(ctx, cal).filter((e) => e.start < to && (e.end > from || (e.end === e.start && e.start >= from)));
  return listAnswer(
    ctx,
    spec,
    rows.map((e) => eventJson(ctx, e, zone)),
    query,
  );
}

export function mountCalendar(router: Router, route: Route) {
  const R = NEEDS.calendarsRead;
  const W = NEEDS.calendarsWrite;
  router.get(
    '/calendar',
    route('calendars.get', R, (ctx) => ({ status: 200, type: 'microsoft.graph.calendar', body: calendarJson(ctx, defaultCalendar(ctx.box)) })),
  );
  router.get(
    '/calendars',
    route('calendars.list', R, (ctx) => ({
      status: 200,
      type: 'Collection(microsoft.graph.calendar)',
      body: {
        '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/calendars`,
        value: [...ctx.box.calendars.values()].map((c) => {
          const { '@odata.context': _, ...rest } = calendarJson(ctx, c);
          return rest;
        }),
      },
    })),
  );
  router.get(
    '/calendars/:calendarId',
    route('calendars.get', R, (ctx) => {
      const c = pickCalendar(ctx);
      return 'code' in c ? c : { status: 200, type: 'microsoft.graph.calendar', body: calendarJson(ctx, c) };
    }),
  );
  for (const base of ['', '/calendar', '/calendars/:calendarId']) {
    router.get(`${base}/events`, route('events.list', R, list));
    router.post(`${base}/events`, route('events.create', W, create));
    router.get(`${base}/calendarView`, route('events.calendarView', R, calendarView));
    router.get(
      `${base}/events/:eventId`,
      route('events.get', R, (ctx) => {
        const e = pickEvent(ctx);
        return 'code' in e ? e : entity(ctx, e);
      }),
    );
    router.patch(`${base}/events/:eventId`, route('events.update', W, update));
    router.delete(`${base}/events/:eventId`, route('events.delete', W, remove));
    router.post(`${base}/events/:eventId/accept`, route('events.accept', W, respond('accepted')));
    router.post(`${base}/events/:eventId/decline`, route('events.decline', W, respond('declined')));
    router.post(`${base}/events/:eventId/tentativelyAccept`, route('events.tentativelyAccept', W, respond('tentativelyAccepted')));
  }
}
