import type { World } from '../world';
import { findCalendar } from './access';
import { expandOccurrences, parseRecurrence, timingBounds } from './recurrence';
import type { EventCopy, EventFields, EventRecord, EventStatus, InstanceException, StoredCalendar, Timing } from './state';
import { formatInZone, formatYmd } from './time';

/**
 * The occurrences of a recurring event as Calendar exposes them: instance ids `<eventId>_<originalStart>`,
 * each possibly overridden by an exception (moved, edited or cancelled), which is keyed by the original start.
 */

export interface Instance {
  id: string;
  recurringEventId: string;
  /** Where the occurrence was before any edit: it identifies the instance. */
  originalTiming: Timing;
  key: string;
  timing: Timing;
  fields: EventFields;
  status: EventStatus;
  exception?: InstanceException;
}

/** The zone a recurring event is expanded in: its own start zone, else its organizer's calendar's. */
export function eventTimeZone(world: World, record: EventRecord): string {
  return record.fields.start.timeZone ?? findCalendar(world, record.calendarId)?.timeZone ?? 'UTC';
}

export const isRecurring = (record: EventRecord) => (record.fields.recurrence?.length ?? 0) > 0;

export function instanceOf(record: EventRecord, key: string, originalTiming: Timing): Instance {
  const exception = record.exceptions.get(key);
  const { recurrence: _omit, ...master } = record.fields;
  const fields = exception?.fields ?? master;
  const cancelled = record.fields.status === 'cancelled' || exception?.cancelled === true;
  const instance: Instance = {
    id: `${record.id}_${key}`,
    recurringEventId: record.id,
    originalTiming,
    key,
    timing: exception?.timing ?? originalTiming,
    fields,
    status: cancelled ? 'cancelled' : fields.status,
  };
  if (exception) instance.exception = exception;
  return instance;
}

export interface Window {
  from?: number;
  to?: number;
}

/**
 * Instances overlapping the window (by their current, possibly moved, times), in order of start. `limit` bounds
 * the work for rules without an end.
 */
export function instancesOf(world: World, record: EventRecord, window: Window, limit = 2500): Instance[] {
  const tz = eventTimeZone(world, record);
  const parsed = parseRecurrence(record.fields.recurrence ?? [], tz);
  if (!parsed.ok) return []; // validated on write; unreachable
  const overlaps = (t: Timing) => {
    const b = timingBounds(t, tz);
    return (
      (window.from === undefined || b.end > window.from || (b.start === b.end && b.start >= window.from)) && (window.to === undefined || b.start < window.to)
    );
  };
  const out = new Map<string, Instance>();
  for (const occ of expandOccurrences(record.timing, parsed.value, tz, { ...window, limit })) {
    const instance = instanceOf(record, occ.key, occ.timing);
    if (overlaps(instance.timing)) out.set(occ.key, instance);
  }
  // Occurrences moved into the window from outside it.
  for (const [key, exception] of record.exceptions) {
    if (out.has(key) || !exception.timing || !overlaps(exception.timing)) continue;
    const original = findOccurrence(world, record, key);
    if (original) out.set(key, instanceOf(record, key, original));
  }
  return [...out.values()].sort((a, b) => timingBounds(a.timing, tz).start - timingBounds(b.timing, tz).start);
}

/** The original timing of the occurrence with this key, if the series has one. */
export function findOccurrence(world: World, record: EventRecord, key: string): Timing | undefined {
  const tz = eventTimeZone(world, record);
  const parsed = parseRecurrence(record.fields.recurrence ?? [], tz);
  if (!parsed.ok) return undefined;
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/.exec(key);
  if (!m) return undefined;
  const at = m[4] === undefined ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) : Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4], +m[5]!, +m[6]!);
  // Expand a day either side of the key's instant: all-day keys are civil dates, read in the event's zone.
  const found = expandOccurrences(record.timing, parsed.value, tz, { from: at - 2 * 86_400_000, to: at + 2 * 86_400_000, limit: 100 });
  return found.find((o) => o.key === key)?.timing;
}

/** Resolves an instance id (`<eventId>_<key>`) to its series and occurrence. */
export function parseInstanceId(id: string): { recurringEventId: string; key: string } | undefined {
  const i = id.lastIndexOf('_');
  if (i <= 0) return undefined;
  return { recurringEventId: id.slice(0, i), key: id.slice(i + 1) };
}

export interface Located {
  copy: EventCopy;
  instance?: Instance;
}

/** Whether reads see the event yet: an insert made with a propagation delay stays unseen for that long. */
export const isVisible = (world: World, record: EventRecord): boolean => record.visibleFrom === undefined || world.clock.now() >= record.visibleFrom;

/**
 * An event id on a calendar: a series or single event, or one occurrence of a series (`<id>_<key>`). An event
 * still propagating is not found (the caller answers 404), as a read right after Google's insert can miss it.
 */
export function locateEvent(world: World, calendar: StoredCalendar, eventId: string): Located | undefined {
  const copy = calendar.events.get(eventId);
  if (copy) return isVisible(world, copy.record) ? { copy } : undefined;
  const parsed = parseInstanceId(eventId);
  const series = parsed && calendar.events.get(parsed.recurringEventId);
  if (!parsed || !series || !isRecurring(series.record) || !isVisible(world, series.record)) return undefined;
  const original = findOccurrence(world, series.record, parsed.key);
  return original ? { copy: series, instance: instanceOf(series.record, parsed.key, original) } : undefined;
}

/** An instance's fields with start/end written out for its own times, as a base for editing it. */
export function instanceFields(world: World, instance: Instance, record: EventRecord): EventFields {
  if (instance.exception?.fields) return instance.fields;
  const tz = eventTimeZone(world, record);
  const side = (which: 'start' | 'end'): EventFields['start'] => {
    const t = instance.timing;
    const zone = record.fields[which].timeZone;
    const value = t.allDay
      ? { date: formatYmd(which === 'start' ? t.startDate : t.endDate) }
      : { dateTime: formatInZone(which === 'start' ? t.startMs : t.endMs, tz) };
    return zone ? { ...value, timeZone: zone } : value;
  };
  return { ...instance.fields, start: side('start'), end: side('end') };
}
