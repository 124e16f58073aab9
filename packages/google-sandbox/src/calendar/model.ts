import { type ApiResult, errors, googleError } from '../google-errors';
import { parseRecurrence } from './recurrence';
import type { EventFields, EventStatus, StoredAttendee, Timing } from './state';
import { compareYmd, isValidTimeZone, parseDate, parseDateTime, zonedToUtc } from './time';

/**
 * Turns what a client wrote into stored event fields, checking what Google checks, with Google's messages.
 * Read-only fields a client echoes back (kind, etag, creator, organizer, htmlLink…) are ignored, as Google does,
 * and defaults are dropped so responses omit them like Google's (no `transparency: "opaque"`, no
 * `guestsCanInviteOthers: true`).
 */

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiResult };
const fail = (error: ApiResult): Outcome<never> => ({ ok: false, error });
const bad = (message: string, reason = 'invalid') => fail(errors.badRequest(message, 'calendar', reason));

/**
 * An empty time range. Google's errors guide shows this one in the `calendar` domain
 * (https://developers.google.com/calendar/api/guides/errors, "400: Bad Request").
 */
export const emptyTimeRange = (): ApiResult =>
  googleError(400, 'The specified time range is empty.', { domain: 'calendar', reason: 'timeRangeEmpty' }, { family: 'calendar' });

export type Reminders = { useDefault: boolean; overrides?: Array<{ method: string; minutes: number }> };

export interface NormalizedEvent {
  fields: EventFields;
  timing: Timing;
  /** Present when the client wrote `reminders` (per-user, stored on the calendar's copy). */
  reminders?: Reminders;
  /** Present when the client wrote `sequence`. */
  sequence?: number;
}

export interface NormalizeContext {
  /** The time zone of the calendar the event is written to: the default for floating values in recurrences. */
  calendarTz: string;
  /** The attendees before this write (their `resource` flag and spelling stay; see `keepReplies`). */
  previousAttendees?: readonly StoredAttendee[];
  /**
   * Whether an attendee listed without a responseStatus keeps their previous reply. Only for a guest writing its
   * own copy (it can answer for itself alone). The organizer's write replaces the list: an entry without
   * responseStatus is needsAction again — reported by clients that sent bare emails and reset every reply
   * (nspady/google-calendar-mcp#148, taylorwilsdon/google_workspace_mcp#319, openonion/connectonion#1558).
   */
  keepReplies?: boolean;
  /** Attachments are kept only for clients that declare `supportsAttachments=true`, as in Google. */
  supportsAttachments: boolean;
  previousAttachments?: EventFields['attachments'];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** Google's PATCH: objects merge field by field, arrays and scalars replace, and null clears. */
export function mergePatch(base: unknown, patch: unknown): unknown {
  if (!isObject(patch) || !isObject(base)) return patch;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = isObject(v) && isObject(out[k]) ? mergePatch(out[k], v) : v;
  }
  return out;
}

/** Removes nulls (proto3 JSON: null is the default value) so insert/update treat them as absent. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, dropNulls(x)]),
  );
}

type Side = 'start' | 'end';
type ParsedSide = { date: ReturnType<typeof parseDate> & object; stored: EventFields['start'] } | { ms: number; stored: EventFields['start'] };

function parseSide(raw: unknown, side: Side): Outcome<ParsedSide> {
  if (!isObject(raw) || (raw.date === undefined && raw.dateTime === undefined)) return bad(`Missing ${side} time.`, 'required');
  const tz = raw.timeZone;
  if (tz !== undefined && (typeof tz !== 'string' || !isValidTimeZone(tz))) return bad(`Invalid time zone definition for ${side} time.`);
  const stored: EventFields['start'] = {};
  if (raw.date !== undefined && raw.dateTime !== undefined) return bad(`Invalid ${side} time.`);
  if (raw.date !== undefined) {
    const date = typeof raw.date === 'string' ? parseDate(raw.date) : undefined;
    if (!date) return bad(`Invalid ${side} time.`);
    stored.date = raw.date as string;
    if (tz) stored.timeZone = tz as string;
    return { ok: true, value: { date, stored } };
  }
  const dt = typeof raw.dateTime === 'string' ? parseDateTime(raw.dateTime) : undefined;
  if (!dt) return bad(`Invalid ${side} time.`);
  if (dt.kind === 'floating' && !tz) return bad(`Missing time zone definition for ${side} time.`, 'required');
  stored.dateTime = raw.dateTime as string;
  if (tz) stored.timeZone = tz as string;
  return { ok: true, value: { ms: dt.kind === 'instant' ? dt.ms : zonedToUtc(dt.wall, tz as string), stored } };
}

/** Start and end: both present (end is checked first, as Google does), both dates or both times, in order. */
export function parseTiming(start: unknown, end: unknown): Outcome<{ timing: Timing; start: EventFields['start']; end: EventFields['end'] }> {
  const e = parseSide(end, 'end');
  if (!e.ok) return e;
  const s = parseSide(start, 'start');
  if (!s.ok) return s;
  const a = s.value;
  const b = e.value;
  if ('date' in a && 'date' in b) {
    if (compareYmd(b.date, a.date) <= 0) return fail(emptyTimeRange());
    return { ok: true, value: { timing: { allDay: true, startDate: a.date, endDate: b.date }, start: a.stored, end: b.stored } };
  }
  if ('ms' in a && 'ms' in b) {
    // Zero-length events are allowed (Google keeps them); only an end before the start is an empty range.
    if (b.ms < a.ms) return fail(emptyTimeRange());
    return { ok: true, value: { timing: { allDay: false, startMs: a.ms, endMs: b.ms }, start: a.stored, end: b.stored } };
  }
  return bad('Start and end times must either both be date or both be dateTime.');
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const RESPONSES = ['needsAction', 'declined', 'tentative', 'accepted'] as const;

function parseAttendees(raw: unknown, previous: readonly StoredAttendee[] = [], keepReplies = false): Outcome<StoredAttendee[]> {
  if (!Array.isArray(raw)) return { ok: true, value: [] };
  const seen = new Set<string>();
  const out: StoredAttendee[] = [];
  for (const a of raw) {
    if (!isObject(a) || typeof a.email !== 'string' || a.email === '') return bad('Missing attendee email.', 'required');
    if (!EMAIL.test(a.email)) return bad('Invalid attendee email.');
    const key = a.email.toLowerCase();
    if (seen.has(key)) continue; // Google keeps one entry per address
    seen.add(key);
    const before = previous.find((p) => p.email.toLowerCase() === key);
    const status = a.responseStatus ?? (keepReplies ? before?.responseStatus : undefined) ?? 'needsAction';
    if (!RESPONSES.includes(status as StoredAttendee['responseStatus'])) return bad(`Invalid value for attendee responseStatus: ${String(status)}`);
    const attendee: StoredAttendee = { email: before?.email ?? a.email, responseStatus: status as StoredAttendee['responseStatus'] };
    if (str(a.displayName)) attendee.displayName = a.displayName as string;
    if (a.optional === true) attendee.optional = true;
    // "Can only be set when the attendee is added to the event for the first time."
    if (before ? before.resource : a.resource === true) attendee.resource = true;
    if (str(a.comment)) attendee.comment = a.comment as string;
    if (typeof a.additionalGuests === 'number' && a.additionalGuests > 0) attendee.additionalGuests = a.additionalGuests;
    out.push(attendee);
  }
  return { ok: true, value: out };
}

function parseReminders(raw: unknown): Outcome<Reminders | undefined> {
  if (!isObject(raw)) return { ok: true, value: undefined };
  const overrides = Array.isArray(raw.overrides) ? raw.overrides : [];
  const useDefault = raw.useDefault === true;
  if (useDefault && overrides.length) {
    return bad('Cannot specify both default reminders and overrides at the same time.', 'cannotUseDefaultRemindersAndSpecifyOverride');
  }
  if (overrides.length > 5) return bad('Too many reminders.', 'tooManyReminders');
  const out: Reminders = { useDefault };
  if (overrides.length) {
    const list: Array<{ method: string; minutes: number }> = [];
    for (const o of overrides) {
      if (!isObject(o) || typeof o.method !== 'string') return bad('Missing reminder method.', 'required');
      if (!['email', 'popup'].includes(o.method)) return bad('Invalid reminder method.');
      if (typeof o.minutes !== 'number' || o.minutes < 0 || o.minutes > 40320) return bad('Invalid reminder minutes.');
      list.push({ method: o.method, minutes: o.minutes });
    }
    out.overrides = list;
  }
  return { ok: true, value: out };
}

function oneOf<T extends string>(name: string, v: unknown, allowed: readonly T[]): Outcome<T | undefined> {
  if (v === undefined) return { ok: true, value: undefined };
  return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? { ok: true, value: v as T } : bad(`Invalid value for ${name}: ${String(v)}`);
}

/** Validates and normalizes an event body (for a patch: the existing event merged with the patch). */
export function normalizeEvent(input: Record<string, unknown>, ctx: NormalizeContext): Outcome<NormalizedEvent> {
  const timing = parseTiming(input.start, input.end);
  if (!timing.ok) return timing;
  const status = oneOf<EventStatus>('status', input.status, ['confirmed', 'tentative', 'cancelled']);
  if (!status.ok) return status;
  const transparency = oneOf('transparency', input.transparency, ['opaque', 'transparent']);
  if (!transparency.ok) return transparency;
  const visibility = oneOf('visibility', input.visibility, ['default', 'public', 'private', 'confidential']);
  if (!visibility.ok) return visibility;
  const attendees = parseAttendees(input.attendees, ctx.previousAttendees, ctx.keepReplies);
  if (!attendees.ok) return attendees;
  const reminders = parseReminders(input.reminders);
  if (!reminders.ok) return reminders;

  const fields: EventFields = { start: timing.value.start, end: timing.value.end, status: status.value ?? 'confirmed' };
  for (const k of ['summary', 'description', 'location', 'colorId'] as const) if (str(input[k])) fields[k] = input[k] as string;
  if (transparency.value === 'transparent') fields.transparency = 'transparent';
  if (visibility.value && visibility.value !== 'default') fields.visibility = visibility.value;
  if (attendees.value.length) fields.attendees = attendees.value;

  const recurrence = Array.isArray(input.recurrence) ? (input.recurrence as string[]).filter((l) => l.trim() !== '') : [];
  if (recurrence.length) {
    // "For recurring events this field is required and specifies the time zone in which the recurrence is expanded."
    if (!timing.value.timing.allDay && !fields.start.timeZone) return bad('Missing time zone definition for start time.', 'required');
    const parsed = parseRecurrence(recurrence, fields.start.timeZone ?? ctx.calendarTz);
    if (!parsed.ok) return bad(parsed.message);
    fields.recurrence = recurrence;
  }

  if (input.endTimeUnspecified === true) fields.endTimeUnspecified = true;
  if (input.anyoneCanAddSelf === true) fields.anyoneCanAddSelf = true;
  if (input.guestsCanInviteOthers === false) fields.guestsCanInviteOthers = false;
  if (input.guestsCanModify === true) fields.guestsCanModify = true;
  if (input.guestsCanSeeOtherGuests === false) fields.guestsCanSeeOtherGuests = false;
  if (input.privateCopy === true) fields.privateCopy = true;
  const ext = input.extendedProperties;
  if (isObject(ext)) {
    const props: NonNullable<EventFields['extendedProperties']> = {};
    for (const k of ['private', 'shared'] as const) if (isObject(ext[k]) && Object.keys(ext[k]).length) props[k] = ext[k] as Record<string, string>;
    if (props.private || props.shared) fields.extendedProperties = props;
  }
  if (isObject(input.source) && (str(input.source.title) || str(input.source.url))) fields.source = input.source as EventFields['source'];
  const attachments = ctx.supportsAttachments ? input.attachments : ctx.previousAttachments;
  if (Array.isArray(attachments) && attachments.length) {
    if (attachments.some((a) => !isObject(a) || !str(a.fileUrl))) return bad('Missing attachment file URL.', 'required');
    fields.attachments = attachments as EventFields['attachments'];
  }

  const value: NormalizedEvent = { fields, timing: timing.value.timing };
  if (reminders.value) value.reminders = reminders.value;
  if (typeof input.sequence === 'number') value.sequence = input.sequence;
  return { ok: true, value };
}

/** The stored fields as a plain object a patch can be merged into. */
export function fieldsAsInput(fields: EventFields): Record<string, unknown> {
  return structuredClone(fields) as unknown as Record<string, unknown>;
}

/**
 * Event ids a client may choose: base32hex (a-v, 0-9), 5 to 1024 characters. Google's rule; ids it generates
 * itself follow it too.
 */
export const isValidEventId = (id: string) => /^[a-v0-9]{5,1024}$/.test(id);
