import type { ListedEvent } from './google';
import { type Interval, eventTimeMs, mergeIntervals, subtractIntervals } from './mapping';
import { isCivilDate, startOfLocalDay } from './time';

/**
 * The organizer's own time, split by how firmly it is taken. freeBusy counts every event the organizer has not
 * declined as busy — including invitations they have not answered and ones they marked "maybe" — so those come
 * from events.list and are told apart: firm busy blocks a slot, tentative time only marks it (`tentative`).
 *
 *   firm = (firm events from the list) ∪ (freeBusy busy − tentative events)
 *
 * Whatever freeBusy reports that the list does not explain stays firm (fail closed).
 */

type Firmness = 'firm' | 'tentative' | 'free';

export function firmnessOf(event: ListedEvent): Firmness {
  if (event.status === 'cancelled' || event.transparency === 'transparent') return 'free';
  const own = event.attendees?.find((a) => a.self === true)?.responseStatus;
  if (own === 'declined') return 'free';
  if (event.status === 'tentative' || own === 'tentative' || own === 'needsAction') return 'tentative';
  return 'firm';
}

/** An event's instants; all-day events are whole local days in `zone` (Google's end date is exclusive). */
export function eventInterval(event: ListedEvent, zone: string): Interval | undefined {
  const start = event.start?.date && isCivilDate(event.start.date) ? startOfLocalDay(event.start.date, zone) : eventTimeMs(event.start);
  const end = event.end?.date && isCivilDate(event.end.date) ? startOfLocalDay(event.end.date, zone) : eventTimeMs(event.end);
  return start !== undefined && end !== undefined && end > start ? { start, end } : undefined;
}

export function organizerTime(
  events: readonly ListedEvent[],
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
