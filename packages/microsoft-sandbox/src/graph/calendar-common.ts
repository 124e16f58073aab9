import type { RequestHandler } from 'express';
import { wellFormedItemId } from '../ids';
import { type GraphCtx, type Handler } from './context';
import { GE, type GraphError } from './errors';
import { type Calendar, type EventRec, defaultCalendar, findEvent } from './mailbox';
import { eventJson, outputZone } from './serialize';
import { ianaOf } from './time';

/** What the calendar handlers share: finding the calendar or event a path names, and answering with one event. */

export type Route = (op: string, needs: readonly string[], h: Handler) => RequestHandler;

export const known = (z: string) => ianaOf(z) !== undefined;
export const now = (ctx: GraphCtx) => ctx.world.clock.now();

export function pickCalendar(ctx: GraphCtx): Calendar | GraphError {
  const id = ctx.req.params.calendarId as string | undefined;
  if (id === undefined) return defaultCalendar(ctx.box);
  if (!wellFormedItemId(id)) return GE.malformedId();
  return ctx.box.calendars.get(id) ?? GE.notFound();
}

export function pickEvent(ctx: GraphCtx): EventRec | GraphError {
  const id = String(ctx.req.params.eventId);
  if (!wellFormedItemId(id)) return GE.malformedId();
  return findEvent(ctx.box, id) ?? GE.notFound();
}

export const etagOf = (e: EventRec) => `W/"${e.changeKey}"`;

export function entity(ctx: GraphCtx, e: EventRec, status = 200) {
  const body = eventJson(ctx, e, outputZone(ctx, known));
  return {
    status,
    type: 'microsoft.graph.event',
    body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/events/$entity`, ...body },
  };
}
