/**
 * What the Calendar emulation stores. Calendars are world-wide (other accounts reach them through their ACL),
 * and an event is one record shared by every calendar that shows it: the organizer's calendar and each invited
 * sandbox account's primary calendar hold a "copy" pointing at the same record, as in Google, so a change by
 * the organizer (or an attendee's reply) is seen everywhere at once. Everything here is plain data (Maps,
 * arrays, objects), because the control API snapshots the state with structuredClone to roll back a failed seed.
 */

export type AccessRole = 'freeBusyReader' | 'reader' | 'writer' | 'owner';

export const ROLE_RANK: Record<AccessRole, number> = { freeBusyReader: 1, reader: 2, writer: 3, owner: 4 };

export type EventStatus = 'confirmed' | 'tentative' | 'cancelled';

/** When an event happens: an instant range, or a civil-date range (end exclusive) for all-day events. */
export type Timing =
  | { allDay: false; startMs: number; endMs: number }
  | { allDay: true; startDate: { y: number; m: number; d: number }; endDate: { y: number; m: number; d: number } };

export interface StoredAttendee {
  email: string;
  displayName?: string;
  optional?: boolean;
  resource?: boolean;
  responseStatus: 'needsAction' | 'declined' | 'tentative' | 'accepted';
  comment?: string;
  additionalGuests?: number;
}

/**
 * The fields a client may write, as it wrote them (normalized: defaults dropped, nulls removed), so a response
 * echoes them faithfully. `start`/`end` keep the client's `timeZone`; their instants live in `timing`.
 */
export interface EventFields {
  summary?: string;
  description?: string;
  location?: string;
  colorId?: string;
  start: { date?: string; dateTime?: string; timeZone?: string };
  end: { date?: string; dateTime?: string; timeZone?: string };
  endTimeUnspecified?: boolean;
  recurrence?: string[];
  status: EventStatus;
  transparency?: 'transparent';
  visibility?: 'public' | 'private' | 'confidential';
  attendees?: StoredAttendee[];
  anyoneCanAddSelf?: boolean;
  guestsCanInviteOthers?: false;
  guestsCanModify?: boolean;
  guestsCanSeeOtherGuests?: false;
  privateCopy?: boolean;
  extendedProperties?: { private?: Record<string, string>; shared?: Record<string, string> };
  source?: { title?: string; url?: string };
  attachments?: Array<Record<string, string>>;
}

/** A change to one occurrence of a recurring event (keyed by the occurrence's original start). */
export interface InstanceException {
  /** Present when the occurrence was edited: its own fields (times included). */
  fields?: EventFields;
  timing?: Timing;
  cancelled: boolean;
  updated: number;
  etag: string;
  sequence: number;
  changeSeq: number;
}

export interface EventRecord {
  id: string;
  iCalUID: string;
  /** The organizer's calendar (where the event was created); its copy is the authoritative one. */
  calendarId: string;
  organizer: { email: string; displayName?: string };
  creator: { email: string };
  fields: EventFields;
  timing: Timing;
  created: number;
  updated: number;
  sequence: number;
  etag: string;
  /** Global change counter at the last change, for sync tokens. */
  changeSeq: number;
  /** Occurrence key (see `instanceKey`) → exception. */
  exceptions: Map<string, InstanceException>;
  /**
   * Until this sandbox time, reads by id miss the event (404) and lists leave it out: the propagation delay
   * (`calendar_propagation_delay_ms`) an API insert was given. Absent: visible at once.
   */
  visibleFrom?: number;
}

/** One calendar's view of an event. */
export interface EventCopy {
  record: EventRecord;
  /** An invitee removed the event from their own calendar (it stays on the organizer's). */
  dismissed: boolean;
  /** Per-user reminders, as in Google. */
  reminders: { useDefault: boolean; overrides?: Array<{ method: string; minutes: number }> };
  changeSeq: number;
}

export interface StoredCalendar {
  id: string;
  summary: string;
  description?: string;
  timeZone: string;
  /** Lower-cased email of the owning account. */
  owner: string;
  /** Lower-cased grantee email → role. The owner is implicit. */
  acl: Map<string, AccessRole>;
  created: number;
  /** Event id → this calendar's copy. Deleted events stay (status cancelled): their ids remain taken. */
  events: Map<string, EventCopy>;
}

/** An email Google would have sent about an event (recorded, not sent). */
export interface CalendarNotification {
  at: string;
  kind: 'invitation' | 'update' | 'cancellation';
  /** Lower-cased recipient. */
  to: string;
  /** The organizer's calendar id, on whose behalf Google writes. */
  from: string;
  calendarId: string;
  eventId: string;
  summary?: string;
  /** The sendUpdates mode of the request that caused it. */
  sendUpdates: 'all' | 'externalOnly' | 'none';
  /**
   * Sent whatever sendUpdates said: the guest's "Add invitations to my calendar" setting kept the event off its
   * calendar, and Google then emails the invitation "even if the organizer doesn't send one".
   */
  reason?: 'not_added_to_calendar';
}

/**
 * A guest's "Add invitations to my calendar" setting (Google Calendar help, "Respond to an event invitation",
 * https://support.google.com/calendar/answer/37135): `everyone` adds every invitation; `known_senders` only
 * those from its contacts, its organization or people it interacted with (here: the same non-consumer email
 * domain, or `knownSenders`); `when_responded` none until the guest answers the email.
 */
export interface InvitationPolicy {
  add: 'everyone' | 'known_senders' | 'when_responded';
  /** Lower-cased addresses the guest knows (contacts, people it interacted with). */
  knownSenders: string[];
}

/** Sandbox-wide calendar behaviour set through `PUT /_sandbox/settings`. */
export interface CalendarSettings {
  /** How long (ms of sandbox time) a newly inserted event stays invisible to reads by id and to lists. */
  propagationDelayMs: number;
}

export interface CalendarState {
  /** Lower-cased calendar id → calendar. */
  calendars: Map<string, StoredCalendar>;
  notifications: CalendarNotification[];
  /** Lower-cased account email → its invitation setting; absent = `everyone`. */
  invitationPolicies: Map<string, InvitationPolicy>;
  settings: CalendarSettings;
  /** Monotonic counter behind etags and sync tokens (deterministic, unlike the wall clock). */
  changeSeq: number;
}

export function createCalendarState(): CalendarState {
  return { calendars: new Map(), notifications: [], invitationPolicies: new Map(), settings: { propagationDelayMs: 0 }, changeSeq: 0 };
}
