import type { RequestHandler, Router } from 'express';
import { ALPHABETS } from '../random';
import { NEEDS } from '../identity/scopes';
import { changeKey, immutableItemId, restItemId, wellFormedItemId } from '../ids';
import type { Person, World } from '../world';
import { type GraphCtx, type Handler, mailboxOf } from './context';
import { GE, type GraphError, graphError } from './errors';
import { type EventPatch, checkEventShape, readEventBody } from './event-input';
import { type Calendar, type EventRec, defaultCalendar, findEvent } from './mailbox';
import { type ListSpec, listAnswer, parseQuery, queryParam } from './odata';
import { eventJson, outputZone } from './serialize';
import { ianaOf } from './time';

/**
 * Calendars and events (calendar-get, user-list-events, user-post-events, event-get, event-update,
 * event-delete, user-list-calendarview, event-accept/decline/tentativelyaccept). Meeting invitations reach
 * attendees who have sandbox mailboxes as their own copy of the event; their answers update the organizer's.
 */

type Route = (op: string, needs: readonly string[], h: Handler) => RequestHandler;

const known = (z: string) => ianaOf(z) !== undefined;
const now = (ctx: GraphCtx) => ctx.world.clock.now();

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

function pickCalendar(ctx: GraphCtx): Calendar | GraphError {
  const id = ctx.req.params.calendarId as string | undefined;
  if (id === undefined) return defaultCalendar(ctx.box);
  if (!wellFormedItemId(id)) return GE.malformedId();
  return ctx.box.calendars.get(id) ?? GE.notFound();
}

function pickEvent(ctx: GraphCtx): EventRec | GraphError {
  const id = String(ctx.req.params.eventId);
  if (!wellFormedItemId(id)) return GE.malformedId();
  return findEvent(ctx.box, id) ?? GE.notFound();
}

const etagOf = (e: EventRec) => `W/"${e.changeKey}"`;

function entity(ctx: GraphCtx, e: EventRec, status = 200) {
  const body = eventJson(ctx, e, outputZone(ctx, known));
  return {
    status,
    type: 'microsoft.graph.event',
    body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/events/$entity`, ...body },
  };
}

/** Invitations: each attendee with a sandbox mailbox gets (or keeps) a copy keyed by the meeting's iCalUId. */
function syncCopies(world: World, organizer: Person, e: EventRec) {
  for (const a of e.attendees) {
    const person = [...world.people.values()].find((p) => p.userPrincipalName.toLowerCase() === a.address.toLowerCase());
    if (!person || person.id === organizer.id) continue;
    const box = mailboxOf(world, person);
    let copy = box.events.find((x) => x.iCalUId === e.iCalUId);
    if (!copy) {
      copy = {
        ...e,
        id: restItemId(world.random),
        immutableId: immutableItemId(world.random),
        calendarId: defaultCalendar(box).id,
        isOrganizer: false,
        response: 'notResponded',
        responseTime: null,
        transactionId: null,
        visibleAt: world.clock.now() + world.consistency.deliveryDelayMs,
        showAs: 'tentative',
      };
      box.events.push(copy);
    }
    Object.assign(copy, {
      subject: e.subject,
      bodyHtml: e.bodyHtml,
      bodyType: e.bodyType,
      start: e.start,
      end: e.end,
      startZone: e.startZone,
      endZone: e.endZone,
      isAllDay: e.isAllDay,
      location: e.location,
      attendees: e.attendees.map((x) => ({ ...x })),
      isCancelled: e.isCancelled,
      changeKey: changeKey(world.random),
      modified: world.clock.now(),
    });
  }
}

function create(ctx: GraphCtx): ReturnType<Handler> {
  const cal = pickCalendar(ctx);
  if ('code' in cal) return cal;
  const input = readEventBody(ctx.req.body, true);
  if ('code' in input) return input;
  // event resource, transactionId: "A custom identifier specified by a client app for the server to avoid
  // redundant POST operations in case of client retries to create the same event" — the retry gets the first.
  if (input.transactionId) {
    const prior = ctx.box.events.find((x) => x.transactionId === input.transactionId);
    if (prior) return entity(ctx, prior, 201);
  }
  const t = now(ctx);
  const e: EventRec = {
    id: restItemId(ctx.world.random),
    immutableId: immutableItemId(ctx.world.random),
    calendarId: cal.id,
    changeKey: changeKey(ctx.world.random),
    iCalUId: `040000008200E00074C5B7101A82E008${ctx.world.random.string(80, ALPHABETS.hex).toUpperCase()}`,
    transactionId: input.transactionId ?? null,
    created: t,
    modified: t,
    subject: input.subject ?? '',
    bodyHtml: input.bodyHtml ?? '',
    bodyType: input.bodyType ?? 'text',
    start: input.start!,
    end: input.end!,
    startZone: input.startZone!,
    endZone: input.endZone!,
    isAllDay: input.isAllDay ?? false,
    showAs: input.showAs ?? 'busy',
    sensitivity: input.sensitivity ?? 'normal',
    location: input.location ?? '',
    organizer: { name: ctx.owner.displayName, address: ctx.owner.userPrincipalName },
    attendees: (input.attendees ?? []).map((a) => ({ ...a, response: 'none' as const, responseTime: null })),
    isOrganizer: true,
    response: 'organizer',
    responseTime: null,
    isCancelled: false,
    importance: input.importance ?? 'normal',
    categories: input.categories ?? [],
    isReminderOn: input.isReminderOn ?? true,
    reminderMinutes: input.reminderMinutes ?? 15,
    visibleAt: t + ctx.world.consistency.newEventDelayMs,
  };
  const shape = checkEventShape(ctx.world, e);
  if (shape) return shape;
  ctx.box.events.push(e);
  syncCopies(ctx.world, ctx.owner, e);
  return entity(ctx, e, 201);
}

function update(ctx: GraphCtx): ReturnType<Handler> {
  const e = pickEvent(ctx);
  if ('code' in e) return e;
  // If-Match with a stale @odata.etag: 412 ErrorIrresolvableConflict (Outlook's change-key check).
  const ifMatch = ctx.req.get('if-match');
  if (ifMatch && ifMatch !== '*' && ifMatch !== etagOf(e)) return GE.conflict();
  const input = readEventBody(ctx.req.body, false);
  if ('code' in input) return input;
  const { attendees, ...rest } = input as EventPatch;
  const next = { ...e, ...rest };
  const shape = checkEventShape(ctx.world, next);
  if (shape) return shape;
  Object.assign(e, rest, { changeKey: changeKey(ctx.world.random), modified: now(ctx) });
  if (attendees)
    e.attendees = attendees.map(
      (a) => e.attendees.find((x) => x.address.toLowerCase() === a.address.toLowerCase()) ?? { ...a, response: 'none', responseTime: null },
    );
  if (e.isOrganizer) syncCopies(ctx.world, ctx.owner, e);
  return entity(ctx, e);
}

function remove(ctx: GraphCtx): ReturnType<Handler> {
  const e = pickEvent(ctx);
  if ('code' in e) return e;
  ctx.box.events.splice(ctx.box.events.indexOf(e), 1);
  // The organizer deleting a meeting cancels it for the attendees (event-delete: "a cancellation message is sent").
  if (e.isOrganizer && e.attendees.length) syncCopies(ctx.world, ctx.owner, { ...e, isCancelled: true });
  return { status: 204 };
}

function respond(kind: 'accepted' | 'declined' | 'tentativelyAccepted'): Handler {
  return (ctx) => {
    const e = pickEvent(ctx);
    if ('code' in e) return e;
    if (e.isOrganizer) return graphError(400, 'ErrorInvalidRequest', "Your request can't be completed. You can't respond to a meeting you organized.");
    const t = now(ctx);
    Object.assign(e, {
      response: kind,
      responseTime: t,
      showAs: kind === 'declined' ? 'free' : kind === 'accepted' ? 'busy' : 'tentative',
      changeKey: changeKey(ctx.world.random),
    });
    const organizer = [...ctx.world.people.values()].find((p) => p.userPrincipalName.toLowerCase() === e.organizer.address.toLowerCase());
    const original = organizer ? mailboxOf(ctx.world, organizer).events.find((x) => x.iCalUId === e.iCalUId && x.isOrganizer) : undefined;
    const me = original?.attendees.find((a) => a.address.toLowerCase() === ctx.owner.userPrincipalName.toLowerCase());
    if (me && (ctx.req.body as { sendResponse?: boolean } | undefined)?.sendResponse !== false) Object.assign(me, { response: kind, responseTime: t });
    if (kind === 'declined') ctx.box.events.splice(ctx.box.events.indexOf(e), 1);
    return { status: 202 };
  };
}

const listSpec = (ctx: GraphCtx, path: string): ListSpec => ({
  entity: 'event',
  defaultTop: 10,
  maxTop: 1000,
  contextPath: `users('${ctx.owner.id}')/${path}`,
});

function visibleEvents(ctx: GraphCtx, cal: Calendar | undefined) {
  return ctx.box.events.filter((e) => e.visibleAt <= now(ctx) && (!cal || e.calendarId === cal.id));
}

function list(ctx: GraphCtx): ReturnType<Handler> {
  const cal = ctx.req.params.calendarId || ctx.req.path.includes('/calendar/') ? pickCalendar(ctx) : undefined;
  if (cal && 'code' in cal) return cal;
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
