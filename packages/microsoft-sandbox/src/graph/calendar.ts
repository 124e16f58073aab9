import type { Router } from 'express';
import { NEEDS } from '../identity/scopes';
import { type GraphCtx, type Handler } from './context';
import { graphError } from './errors';
import { type Calendar, defaultCalendar } from './mailbox';
import { type ListSpec, listAnswer, parseQuery, queryParam } from './odata';
import { eventJson, outputZone } from './serialize';
import { type Route, entity, expandedProperty, known, now, pickCalendar, pickEvent, withExpansion } from './calendar-common';
import { type Expr, evaluate } from './filter';
import { sameExtendedId } from './event-input';
import type { EventRec } from './mailbox';
import { create, remove, respond, update } from './event-write';

/**
 * Calendars and events (calendar-get, user-list-events, user-post-events, event-get, event-update,
 * event-delete, user-list-calendarview, event-accept/decline/tentativelyaccept). Meeting invitations reach
 * attendees who have sandbox mailboxes as their own copy of the event; their answers update the organizer's.
 */

function calendarJson(ctx: GraphCtx, c: Calendar) {
  const shared = c.owner !== undefined;
  return {
    '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/calendars/$entity`,
    id: c.id,
    name: c.name,
    color: c.color,
    hexColor: '',
    isDefaultCalendar: c.isDefault,
    changeKey: c.changeKey,
    // calendar resource: canShare "true if the user has the permission to share the calendar… Only the user who
    // created the calendar can share it"; canEdit true for the owner and for whoever it was shared with to edit.
    canShare: c.canShare ?? !shared,
    canViewPrivateItems: !shared,
    canEdit: c.canEdit ?? true,
    allowedOnlineMeetingProviders: ['teamsForBusiness'],
    defaultOnlineMeetingProvider: 'teamsForBusiness',
    isTallyingResponses: true,
    isRemovable: !c.isDefault,
    owner: c.owner ?? { name: ctx.owner.displayName, address: ctx.owner.userPrincipalName },
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

/**
 * Extended property ids a filter compares `id` with inside `singleValueExtendedProperties/any(…)`: the generic
 * filter compares strings case-insensitively, but the property's name must match exactly (sameExtendedId).
 */
function extendedIdsIn(e: Expr, out: string[] = []): string[] {
  if (e.kind === 'and' || e.kind === 'or') {
    extendedIdsIn(e.left, out);
    extendedIdsIn(e.right, out);
  } else if (e.kind === 'not') extendedIdsIn(e.expr, out);
  else if (e.kind === 'any' && /^singleValueExtendedProperties$/i.test(e.collection)) {
    const walk = (x: Expr): void => {
      if (x.kind === 'and' || x.kind === 'or') return (walk(x.left), walk(x.right));
      if (x.kind === 'cmp' && x.op === 'eq' && x.left.kind === 'path' && x.left.path === `${e.variable}/id` && x.right.kind === 'lit')
        out.push(String(x.right.value));
    };
    walk(e.body);
  }
  return out;
}

/**
 * Events as a list answers them: filtered (extended properties are visible to `$filter` though never part of the
 * event's JSON — "The response body does not include the extended property"), then ordered, paged and projected.
 */
function eventList(ctx: GraphCtx, spec: ListSpec, rows: EventRec[]): ReturnType<Handler> {
  const query = parseQuery(ctx, spec);
  if ('code' in query) return query;
  const expand = expandedProperty(ctx);
  if (expand && 'code' in expand) return expand;
  const zone = outputZone(ctx, known);
  const ids = query.filter ? extendedIdsIn(query.filter) : [];
  const items = rows
    .map((e) => ({ e, json: eventJson(ctx, e, zone) }))
    .filter(({ e, json }) => {
      if (!query.filter) return true;
      const ext = e.extendedProperties ?? [];
      if (!ids.every((id) => ext.some((p) => sameExtendedId(p.id, id)))) return false;
      return evaluate(query.filter, { ...json, singleValueExtendedProperties: ext });
    })
    .map(({ e, json }) => withExpansion(json, e, expand));
  const select = query.select && expand ? [...query.select, 'singleValueExtendedProperties'] : query.select;
  return listAnswer(ctx, spec, items, { ...query, filter: undefined, select });
}

function list(ctx: GraphCtx): ReturnType<Handler> {
  const cal = ctx.req.params.calendarId || ctx.req.path.includes('/calendar/') ? pickCalendar(ctx) : undefined;
  if (cal && 'code' in cal) return cal;
  const noSearch = refuseSearch(ctx);
  if (noSearch) return noSearch;
  return eventList(ctx, listSpec(ctx, 'events'), visibleEvents(ctx, cal));
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
  const rows = visibleEvents(ctx, cal).filter((e) => e.start < to && (e.end > from || (e.end === e.start && e.start >= from)));
  return eventList(ctx, listSpec(ctx, 'calendarView'), rows);
}

/**
 * GET /me/calendars (user-list-calendars): a page of 10 unless `$top` says otherwise, `@odata.nextLink` to the
 * next (Graph's default page for Outlook collections is 10 — paging: "some queries return… default page sizes").
 */
function calendarList(ctx: GraphCtx): ReturnType<Handler> {
  const spec: ListSpec = { entity: 'calendar', defaultTop: 10, maxTop: 1000, contextPath: `users('${ctx.owner.id}')/calendars` };
  const query = parseQuery(ctx, spec);
  if ('code' in query) return query;
  const items = [...ctx.box.calendars.values()].map((c) => {
    const { '@odata.context': _, ...rest } = calendarJson(ctx, c);
    return rest as Record<string, unknown>;
  });
  return listAnswer(ctx, spec, items, query);
}

export function mountCalendar(router: Router, route: Route) {
  const R = NEEDS.calendarsRead;
  const W = NEEDS.calendarsWrite;
  router.get(
    '/calendar',
    route('calendars.get', R, (ctx) => ({ status: 200, type: 'microsoft.graph.calendar', body: calendarJson(ctx, defaultCalendar(ctx.box)) })),
  );
  router.get('/calendars', route('calendars.list', R, calendarList));
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
