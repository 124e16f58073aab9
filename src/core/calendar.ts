import type { Result } from './errors';

/**
 * The calendar port: what the calendar tools need from a connected calendar account, in vendor-neutral values.
 * Each provider implements it (src/providers/<vendor>/calendar); the tools in src/tools/calendar call nothing else.
 *
 * Conventions every adapter keeps:
 * - Instants are milliseconds since the epoch; intervals are half-open [start, end).
 * - `calendarId` "primary" is the account's own default calendar; any other id is the vendor's.
 * - Failures are HubError values with the contract's codes. An event (or calendar) that does not exist is
 *   RESOURCE_NOT_FOUND with `details.upstream_status`; the vendor's lag after the Hub's own create is absorbed by
 *   the adapter (read-after-create), never reported as absence while it lasts.
 * - Reads are safe to retry; writes say below what a repeat does.
 */

export interface Interval {
  start: number;
  end: number;
}

/**
 * Busy time as the port hands it out (CalendarBusy.busy): clipped to the range, empty intervals dropped, sorted,
 * overlapping or touching ones merged. Every adapter and the tools use this one rule.
 */
export function mergeIntervals(intervals: readonly Interval[], range: Interval): Interval[] {
  const clipped = intervals
    .map((i) => ({ start: Math.max(i.start, range.start), end: Math.min(i.end, range.end) }))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Interval[] = [];
  for (const i of clipped) {
    const last = out.at(-1);
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

/** One calendar's busy time over a range, or why it could not be read: unreadable is never free. */
export type CalendarBusy = { readable: true; busy: Interval[] } | { readable: false; reason: string };

export const EVENT_STATUSES = ['confirmed', 'tentative', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const RESPONSE_STATUSES = ['needsAction', 'declined', 'tentative', 'accepted'] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];

/** A timed event's instant, or an all-day event's local date (YYYY-MM-DD; the end date is exclusive). */
export type EventTime = { instant: number } | { date: string };

export interface CalendarEvent {
  id: string;
  /** Where a person opens the event in the vendor's web app. */
  htmlLink: string;
  status: EventStatus;
  title: string | null;
  start: EventTime | null;
  end: EventTime | null;
  attendees: { email: string; responseStatus: ResponseStatus }[];
}

/** What calendar_create_event writes; times are RFC 3339 with an offset, as the caller gave them. */
export interface EventDraft {
  title: string;
  start: string;
  end: string;
  description?: string;
  location?: string;
  /** Bare addresses. */
  attendees?: readonly string[];
}

/**
 * What calendar_update_event changes: only the fields given. `attendees` is the complete new guest list; guests
 * who stay keep their replies (the adapter rewrites the list from what the vendor holds, guarded against a
 * concurrent change — a change that keeps racing is CONFLICT `concurrent_change`).
 */
export type EventChanges = Partial<EventDraft>;

export interface WriteOptions {
  /** send_notifications: false = do not email the attendees; undefined = the vendor's default (email them). */
  notify?: boolean;
}

export interface CreateOptions extends WriteOptions {
  /**
   * Set when the call carries a request_id: an opaque key (32 base32hex characters, a keyed digest of customer,
   * end user, calendar and request_id) the adapter uses so that a repeat of the create — even after the Hub lost
   * the first answer or crashed — finds the first event instead of making a second one. Null: the adapter still
   * makes its own retries safe (a random key per call).
   */
  dedupKey: string | null;
}

/** `replayed`: the event already existed under this dedupKey (an earlier attempt made it). */
export interface CreatedEvent {
  event: CalendarEvent;
  replayed: boolean;
}

/** An event of the account's own calendar in a range, for the organizer's tentative time. */
export interface AgendaEvent {
  status: EventStatus;
  start: EventTime | null;
  end: EventTime | null;
  /** Shown as free (Google's transparency "transparent", Graph's showAs "free"). */
  free: boolean;
  /** The account's own answer when it is a guest; null when it organises the event or is not listed. */
  selfResponse: ResponseStatus | null;
}

export const ACCESS_ROLES = ['freeBusyReader', 'reader', 'writer', 'owner'] as const;
export type AccessRole = (typeof ACCESS_ROLES)[number];

export interface CalendarInfo {
  id: string;
  name: string;
  primary: boolean;
  /** One of ACCESS_ROLES, or a finer role the vendor added (Google's writerWithoutPrivateAccess), passed on. */
  accessRole: string;
  /** IANA zone, when the vendor gives one. */
  timeZone: string | null;
}

export interface WorkingHoursFact {
  start: string;
  end: string;
  days: ('monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday')[];
  /** The IANA zone the hours are local times of. */
  timeZone: string;
}

export interface CalendarPort {
  /**
   * The account's IANA time zone (memoised by the adapter per connection). A vendor that keeps its own zone names
   * answers the IANA zone with the same rules — Outlook's Windows zones each stand for several IANA zones with
   * identical offsets (Romance Standard Time: Paris, Madrid, Brussels, Copenhagen), so the name may be another
   * city's than the one the person chose, never another clock.
   */
  timeZone(): Promise<Result<string>>;
  /** The working hours the vendor keeps for the account (Outlook's mailboxSettings); null when it keeps none (Google). */
  workingHours(): Promise<Result<WorkingHoursFact | null>>;
  getEvent(calendarId: string, eventId: string): Promise<Result<CalendarEvent>>;
  /** Once per dedupKey: a repeat answers with the first event (`replayed`). */
  createEvent(calendarId: string, draft: EventDraft, options: CreateOptions): Promise<Result<CreatedEvent>>;
  /** A repeat ends in the same state. A change that would end the event before it starts: VALIDATION_ERROR, details.reason `time_range_empty`. */
  updateEvent(calendarId: string, eventId: string, changes: EventChanges, options: WriteOptions): Promise<Result<CalendarEvent>>;
  /** Deleting an event already deleted answers `alreadyDeleted` where the vendor can tell; unknown is RESOURCE_NOT_FOUND. */
  deleteEvent(calendarId: string, eventId: string, options: WriteOptions): Promise<Result<{ alreadyDeleted: boolean }>>;
  /**
   * Busy time of each id ("primary", calendar ids, people's addresses) over `range`, merged, sorted and clipped;
   * ranges longer than the vendor takes in one request are split and joined. `zone`: for the vendor's all-day math.
   */
  freeBusy(ids: readonly string[], range: Interval, zone: string): Promise<Result<Map<string, CalendarBusy>>>;
  /** The account's own calendar in `range`, recurring events expanded; `complete` false when cut at the adapter's bound. */
  agenda(range: Interval): Promise<Result<{ events: AgendaEvent[]; complete: boolean }>>;
  /** Primary first; `truncated` when the account has more than one call returns. */
  listCalendars(minAccessRole?: AccessRole): Promise<Result<{ calendars: CalendarInfo[]; truncated: boolean }>>;
}
