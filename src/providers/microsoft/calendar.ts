import { z } from 'zod';
import type { CalendarPort } from '../../core/calendar';
import { type Result, ok } from '../../core/errors';
import { createEvent } from './calendar-create';
import { deleteEvent } from './calendar-delete';
import { eventPath, mapped, readRaw } from './calendar-events';
import { freeBusy } from './calendar-free-busy';
import { type GraphCalendarDeps, createGraph, factKey } from './calendar-graph';
import { listCalendars } from './calendar-list';
import { timeZone, workingHours } from './calendar-mailbox';
import { createdRecently, settleById } from './calendar-memory';
import { agendaOf } from './calendar-recent';
import { updateEvent } from './calendar-update';

export type { GraphCalendarDeps } from './calendar-graph';

/**
 * Outlook Calendar behind the calendar port, through Microsoft Graph v1.0: one adapter per tool call (its deps
 * carry the call's deadline), sharing the per-process facts cache with every other call of the connection.
 * The differences from Google and what the Hub does about each: docs/outlook.md.
 */

/** The account's own address never changes for a connection (a reconnect to another account is another key). */
const ADDRESS_TTL_MS = 60 * 60_000;
const meSchema = z.object({ mail: z.string().max(320).nullish(), userPrincipalName: z.string().min(1).max(320) });

export function createGraphCalendar(deps: GraphCalendarDeps): CalendarPort {
  const graph = createGraph(deps);

  const ownAddress = (): Promise<Result<string>> => {
    if (deps.connection.accountEmail) return Promise.resolve(ok(deps.connection.accountEmail));
    return deps.cache.memo(factKey(deps, 'calendar:address'), ADDRESS_TTL_MS, async () => {
      const me = await graph.send('user.get', true, { method: 'GET', path: '/me', query: { $select: 'mail,userPrincipalName' } }, meSchema);
      return me.ok ? ok(me.value.mail || me.value.userPrincipalName) : me;
    });
  };

  return {
    timeZone: () => timeZone(graph),
    workingHours: () => workingHours(graph),
    async getEvent(calendarId, eventId) {
      const path = eventPath(calendarId, eventId);
      if (!path.ok) return path;
      const tolerate = await createdRecently(deps, calendarId, eventId);
      return mapped(await settleById(deps, tolerate, () => readRaw(graph, path.value)), 'events.get');
    },
    createEvent: (calendarId, draft, options) => createEvent(graph, calendarId, draft, options),
    updateEvent: (calendarId, eventId, changes, options) => updateEvent(graph, calendarId, eventId, changes, options),
    deleteEvent: (calendarId, eventId, options) => deleteEvent(graph, calendarId, eventId, options),
    freeBusy: (ids, range, zone) => freeBusy(graph, ids, range, zone, ownAddress),
    agenda: (range) => agendaOf(graph, 'primary', '/me/calendar', range),
    listCalendars: (minAccessRole) => listCalendars(graph, minAccessRole),
  };
}
