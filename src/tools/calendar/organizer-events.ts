import type { AgendaEvent } from '../../core/calendar';
import { type Interval, eventTimeMs, mergeIntervals, subtractIntervals } from './mapping';
import { isCivilDate, startOfLocalDay } from './time';

/**
 * The organizer's own time, split by how firmly it is taken. freeBusy counts every event the organizer has not
 * declined as busy — including invitations they have not answered and ones they marked "maybe" — so those come
 * from the agenda (the port's events of the account's calendar) and are told apart: firm busy blocks a slot,
 * tentative time only marks it (`tentative`).
 *
 *   firm = (firm events from the agenda) ∪ (freeBusy busy − tentative events)
 *
 * Whatever freeBusy reports that the agenda does not explain stays firm (fail closed).
 */

type Firmness = 'firm' | 'tentative' | 'free';

export function firmnessOf(event: AgendaEvent): Firmness {
  if (event.status === 'cancelled' || event.free) return 'free';
  const own = event.selfResponse;
  if (own === 'declined') return 'free';
  if (event.status === 'tentative' || own === 'tentative' || own === 'needsAction') return 'tentative';
  return 'firm';
}

/** An event's instants; all-day events are whole local days in `zone` (the end date is exclusive). */
export function eventInterval(event: AgendaEvent, zone: string): Interval | undefined {
  const day = (t: AgendaEvent['start']) => (t !== null && 'date' in t && isCivilDate(t.date) ? startOfLocalDay(t.date, zone) : eventTimeMs(t));
  const start = day(event.start);
  const end = day(event.end);
  return start !== undefined && end !== undefined && end > start ? { start, end } : undefined;
}

export function organizerTime(
  events: readonly AgendaEvent[],
  freeBusy: readonly Interval[],
  zone: string,
  range: Interval,
): { firm: Interval[]; tentative: Interval[] } {
  const firm: Interval[] = [];
  const tentative: Interval[] = [];
  for (const event of events) {
    const firmness = firmnessOf(event);
    if (firmness === 'free') continue;
    const interval = eventInterval(event, zone);
    if (!interval) continue;
    (firmness === 'firm' ? firm : tentative).push(interval);
  }
  const tentativeMerged = mergeIntervals(tentative, range);
  const firmMerged = mergeIntervals([...firm, ...subtractIntervals(freeBusy, tentativeMerged)], range);
  return { firm: firmMerged, tentative: tentativeMerged };
}
