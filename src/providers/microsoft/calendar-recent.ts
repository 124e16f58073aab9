import { DateTime } from 'luxon';
import type { AgendaEvent, EventTime, Interval } from '../../core/calendar';
import { type Result, ok } from '../../core/errors';
import { type GraphEvent, toAgendaEvent } from './calendar-answers';
import { eventPath, readRaw } from './calendar-events';
import type { Graph } from './calendar-graph';
import { inTurns } from './calendar-intervals';
import { timeZone } from './calendar-mailbox';
import { createdLately, isPlain404 } from './calendar-memory';
import { calendarView } from './calendar-view';

/**
 * Read-after-create for the lists. Outlook shows a new event in calendarView and getSchedule only after a delay
 * (calendar-memory.ts), while a read by id is served from the mailbox at once. A Hub that created a meeting and
 * then answered free/busy without it would offer that very hour to the next one — the port's convention is that
 * the vendor's lag after the Hub's own create is absorbed by the adapter. So wherever the adapter lists one of the
 * account's own calendars, the events the Hub created in it during the last minute are read by id and
 * joined in, as Graph holds them now: moved, cancelled or shown as free as Graph says, and left out once Graph
 * answers 404 (deleted — reads by id do not lag). A failed read fails the whole answer, never a shorter list.
 * Every replica sharing the Hub's Redis knows them (calendar-memory.ts): a call that lands on another replica
 * right after the create shows the new event too. Remembered by the calendar id the create named: an event created in "primary" joins "primary" and the
 * account's own address; one created under the default calendar's explicit id joins that id only.
 */

/** Reads under way at once: Outlook allows four per app and mailbox, shared with everything else (limits.ts). */
const PARALLEL = 2;

/**
 * The Hub's recent creates in `calendarId` that are not in `listed` and may lie in `range`, read by id; deleted ones
 * left out. One whose every span the Hub wrote (a day wider each way: spanOf) lies outside the range is not read:
 * the list could not hold it unless someone else moved it days away within the minute — a change Outlook's lists
 * show once they catch up, as any other person's change. Each read is a request against the mailbox's budget (limits.ts), so a burst of creates
 * across a month does not make every availability call of the next minute cost twenty more.
 */
async function recentEvents(graph: Graph, calendarId: string, listed: ReadonlySet<string>, range: Interval): Promise<Result<GraphEvent[]>> {
  const mayLieIn = (spans: readonly Interval[]) => spans.length === 0 || spans.some((s) => s.start < range.end && s.end > range.start);
  const recent = (await createdLately(graph.deps, calendarId)).filter((r) => !listed.has(r.id) && mayLieIn(r.spans));
  const reads = recent.map((r) => async (): Promise<Result<GraphEvent | null>> => {
    const path = eventPath(calendarId, r.id);
    if (!path.ok) return ok(null);
    const got = await readRaw(graph, path.value);
    return got.ok || !isPlain404(got.error) ? got : ok(null);
  });
  const events: GraphEvent[] = [];
  for (const answer of await inTurns(reads, PARALLEL)) {
    if (!answer.ok) return answer;
    if (answer.value) events.push(answer.value);
  }
  return ok(events);
}

/** An event time's instant: all-day dates begin at midnight in `zone`. */
export const instantOfTime = (t: EventTime | null, zone: string): number | undefined =>
  t === null ? undefined : 'instant' in t ? t.instant : DateTime.fromISO(t.date, { zone }).startOf('day').toMillis();

/** Busy time from agenda rows: events not cancelled and not shown as free; all-day ones as whole days in `zone`. */
export function busyOf(events: readonly AgendaEvent[], zone: string): Interval[] {
  const busy: Interval[] = [];
  for (const e of events) {
    if (e.status === 'cancelled' || e.free) continue;
    const start = instantOfTime(e.start, zone);
    const end = instantOfTime(e.end, zone);
    if (start !== undefined && end !== undefined && Number.isFinite(start) && Number.isFinite(end)) busy.push({ start, end });
  }
  return busy;
}

const overlaps = (e: AgendaEvent, range: Interval, zone: string) => {
  const start = instantOfTime(e.start, zone);
  const end = instantOfTime(e.end, zone);
  return start !== undefined && end !== undefined && start < range.end && end > range.start;
};

const rowsIn = (events: readonly GraphEvent[], range: Interval, zone: string) =>
  events.map(toAgendaEvent).filter((e): e is AgendaEvent => e !== undefined && overlaps(e, range, zone));

/** Busy time of the Hub's recent creates in `calendarId` over `range`: what getSchedule may not show yet. */
export async function recentBusy(graph: Graph, calendarId: string, range: Interval, zone: string): Promise<Result<Interval[]>> {
  const recent = await recentEvents(graph, calendarId, new Set(), range);
  return recent.ok ? ok(busyOf(rowsIn(recent.value, range, zone), zone)) : recent;
}

/** A calendar's occurrences in `range` (calendarView), with the Hub's recent creates it does not list yet. */
export async function agendaOf(
  graph: Graph,
  calendarId: string,
  calendarBase: string,
  range: Interval,
): Promise<Result<{ events: AgendaEvent[]; complete: boolean }>> {
  const view = await calendarView(graph, calendarBase, range);
  if (!view.ok) return view;
  const { events, ids, complete } = view.value;
  const recent = await recentEvents(graph, calendarId, new Set(ids), range);
  if (!recent.ok) return recent;
  if (recent.value.length === 0) return ok({ events, complete });
  // All-day events lie in the mailbox's zone, as calendarView places them: asked for only when one is all-day.
  const allDay = recent.value.some((e) => e.isAllDay === true) || events.some((e) => e.start !== null && 'date' in e.start);
  const zone = allDay ? await timeZone(graph) : ok('UTC');
  if (!zone.ok) return zone;
  const extra = rowsIn(recent.value, range, zone.value);
  if (extra.length === 0) return ok({ events, complete });
  const startOf = (e: AgendaEvent) => instantOfTime(e.start, zone.value) ?? 0;
  return ok({ events: [...events, ...extra].sort((a, b) => startOf(a) - startOf(b)), complete });
}
