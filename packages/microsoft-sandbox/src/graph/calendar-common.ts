import type { RequestHandler } from 'express';
import { wellFormedItemId } from '../ids';
import { type GraphCtx, type Handler } from './context';
import { GE, type GraphError } from './errors';
import { type Calendar, type EventRec, defaultCalendar, findEvent } from './mailbox';
import { sameExtendedId } from './event-input';
import { queryParam } from './odata';
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

/**
 * `$expand=singleValueExtendedProperties($filter=id eq '…')` (singlevaluelegacyextendedproperty-get): "currently
 * the only way to get" an extended property — the event comes with the one property named, when it has it.
 * Undefined when the request expands nothing; a refusal for any other `$expand` on events.
 */
export function expandedProperty(ctx: GraphCtx): { id: string } | undefined | GraphError {
  const raw = queryParam(ctx, '$expand');
  if (raw === undefined) return undefined;
  const m = /^singleValueExtendedProperties\(\$filter=id eq '((?:[^']|'')*)'\)$/i.exec(raw.trim());
  if (!m) return GE.badRequest(`The sandbox expands only singleValueExtendedProperties($filter=id eq '…') on events, not '${raw.slice(0, 100)}'.`);
  return { id: m[1]!.replace(/''/g, "'") };
}

/** The event's JSON with the expanded property, when asked for and present. */
export function withExpansion(json: Record<string, unknown>, e: EventRec, expand: { id: string } | undefined): Record<string, unknown> {
  if (!expand) return json;
  const found = (e.extendedProperties ?? []).filter((p) => sameExtendedId(p.id, expand.id));
  return { ...json, singleValueExtendedProperties: found.map((p) => ({ id: p.id, value: p.value })) };
}

export function entity(ctx: GraphCtx, e: EventRec, status = 200) {
  const expand = expandedProperty(ctx);
  if (expand && 'code' in expand) return expand;
  const body = withExpansion(eventJson(ctx, e, outputZone(ctx, known)), e, expand);
  return {
    status,
    type: 'microsoft.graph.event',
    body: { '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#users('${ctx.owner.id}')/events/$entity`, ...body },
  };
}
