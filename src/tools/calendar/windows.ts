import { DateTime } from 'luxon';
import { WEEKDAYS, type Weekday, type WorkingHours, minutesOf } from '../../core/working-hours';
import type { Interval } from './mapping';
import { zoneNamed } from './zones';

/**
 * Working-hours windows: for each local day of a range in a zone, the instants between the day's working start
 * and end ("09:00"–"17:00" on the listed weekdays), clipped to the range. Built from wall-clock times with
 * luxon, so a day on which DST changes still runs 09:00–17:00 locally (and a 00:00–24:00 day is 23 or 25 hours
 * long). The optional preferred hours are computed the same way, unclipped, for scoring.
 */

export interface DayWindow {
  /** The local date, "YYYY-MM-DD". */
  day: string;
  weekday: Weekday;
  start: number;
  end: number;
  /** The day's preferred hours as instants, when preferences name them. */
  preferred: Interval | null;
}

export interface HoursOfDay {
  start: string;
  end: string;
}

const at = (day: DateTime, hhmm: string): number => {
  const minutes = minutesOf(hhmm);
  if (minutes === 1440) return day.plus({ days: 1 }).startOf('day').toMillis();
  return day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60, second: 0, millisecond: 0 }).toMillis();
};

export function workingWindows(hours: WorkingHours, zone: string, range: Interval, preferred: HoursOfDay | null = null): DayWindow[] {
  const out: DayWindow[] = [];
  let day = DateTime.fromMillis(range.start, { zone: zoneNamed(zone) }).startOf('day');
  // At most 92 iterations for the 90-day limit; the guard only protects against a bad range.
  for (let i = 0; i < 400 && day.toMillis() < range.end; i++, day = day.plus({ days: 1 }).startOf('day')) {
    const weekday = WEEKDAYS[day.weekday - 1]!;
    if (!hours.days.includes(weekday)) continue;
    const start = Math.max(at(day, hours.start), range.start);
    const end = Math.min(at(day, hours.end), range.end);
    if (end <= start) continue;
    out.push({
      day: day.toISODate()!,
      weekday,
      start,
      end,
      preferred: preferred ? { start: at(day, preferred.start), end: at(day, preferred.end) } : null,
    });
  }
  return out;
}
