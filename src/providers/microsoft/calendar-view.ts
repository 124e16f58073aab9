import { z } from 'zod';
import type { AgendaEvent, Interval } from '../../core/calendar';
import { type Result, fail, ok } from '../../core/errors';
import { AGENDA_SELECT, agendaRowSchema, toAgendaEvent } from './calendar-answers';
import { type Graph, unexpectedAnswer } from './calendar-graph';
import type { GraphRequest } from './graph-request';

/**
 * A calendar's occurrences in a range (GET …/calendarView: recurring events expanded, each occurrence that
 * overlaps the window), paged through `@odata.nextLink` — followed only when it is on the configured Graph
 * endpoint, so a hostile answer cannot send the token elsewhere. At most MAX_PAGES pages of PAGE_SIZE: beyond
 * that the list is cut and says so (`complete: false`).
 */

const PAGE_SIZE = '250';
/** 2,000 occurrences: far beyond a real 90-day window, a bound on one call's work. */
const MAX_PAGES = 8;

const pageSchema = z.object({ value: z.array(agendaRowSchema).max(1000), '@odata.nextLink': z.string().max(8192).nullish() });

export interface ViewRows {
  events: AgendaEvent[];
  /** Graph's ids of `events`, in the same order. */
  ids: string[];
  complete: boolean;
}

export async function calendarView(graph: Graph, calendarBase: string, range: Interval): Promise<Result<ViewRows>> {
  const events: AgendaEvent[] = [];
  const ids: string[] = [];
  let req: GraphRequest = {
    method: 'GET',
    path: `${calendarBase}/calendarView`,
    query: { startDateTime: new Date(range.start).toISOString(), endDateTime: new Date(range.end).toISOString(), $select: AGENDA_SELECT, $top: PAGE_SIZE },
  };
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await graph.send('events.calendarView', true, req, pageSchema);
    if (!answer.ok) return answer;
    for (const row of answer.value.value) {
      const event = toAgendaEvent(row);
      if (!event) return fail(unexpectedAnswer('events.calendarView'));
      events.push(event);
      ids.push(row.id);
    }
    const next = answer.value['@odata.nextLink'];
    if (!next) return ok({ events, ids, complete: true });
    if (!graph.isGraphLink(next)) return fail(unexpectedAnswer('events.calendarView'));
    req = { method: 'GET', path: next };
  }
  return ok({ events, ids, complete: false });
}
