import { type ApiCall, type ApiResult, ok } from '../api/types';
import { errors, googleError } from '../google-errors';
import { calendarKey, openCalendar } from './access';
import { responseZone } from './events-get';
import { maxAttendees } from './events-insert';
import { type Instance, eventTimeZone, findOccurrence, instanceOf, instancesOf, isRecurring, isVisible } from './occurrences';
import { type RenderContext, copyStatus, renderCancelledInstance, renderEvent } from './render';
import { emptyTimeRange } from './model';
import { timingBounds } from './recurrence';
import { ROLE_RANK, type EventCopy, type EventFields, type EventRecord } from './state';
import { parseInstant } from './time';

/**
 * `events.list`: the window filter (an event is in when it ends after timeMin and starts before timeMax),
 * recurring series either as one item or expanded (`singleEvents`), free-text `q`, extended-property filters,
 * deleted events only with `showDeleted` (or on incremental sync), ordering, opaque page tokens, and sync tokens
 * that return what changed since.
 */

const badRequest = () => errors.badRequest('Bad Request', 'calendar', 'badRequest');

interface Item {
  start: number;
  updated: number;
  render: (ctx: RenderContext) => Record<string, unknown>;
}

/** Google matches every term of `q` against the event's text (summary, description, location, people). */
function matchesQuery(q: string, fields: EventFields, record: EventRecord): boolean {
  const terms = q.toLowerCase().split(/\s+/).filter(Boolean);
  const people = (fields.attendees ?? []).flatMap((a) => [a.email, a.displayName ?? '']);
  const text = [fields.summary, fields.description, fields.location, record.organizer.email, record.organizer.displayName, ...people]
    .filter(Boolean)
    .join('\n')
    .toLowerCase();
  return terms.every((t) => text.includes(t));
}

/** `privateExtendedProperty`/`sharedExtendedProperty`: every `name=value` constraint must hold. */
function matchesProperties(fields: EventFields, call: ApiCall): boolean {
  const check = (param: string, bag: Record<string, string> | undefined) => {
    const constraints = call.query[param];
    if (!Array.isArray(constraints)) return true;
    return constraints.every((c) => {
      const i = c.indexOf('=');
      return i > 0 && bag?.[c.slice(0, i)] === c.slice(i + 1);
    });
  };
  return check('privateExtendedProperty', fields.extendedProperties?.private) && check('sharedExtendedProperty', fields.extendedProperties?.shared);
}

const SYNC_INCOMPATIBLE = ['iCalUID', 'orderBy', 'privateExtendedProperty', 'q', 'sharedExtendedProperty', 'timeMin', 'timeMax', 'updatedMin'];

const encodeToken = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
function decodeToken(token: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

export function listEvents(call: ApiCall): ApiResult {
  const opened = openCalendar(call, call.params.calendarId!, 'freeBusyReader');
  if (!opened.ok) return opened.error;
  const { calendar, role } = opened;
  const { world, query } = call;
  const zone = responseZone(call, calendar.timeZone);
  if (!zone.ok) return zone.error;

  const timeMin = typeof query.timeMin === 'string' ? parseInstant(query.timeMin) : undefined;
  const timeMax = typeof query.timeMax === 'string' ? parseInstant(query.timeMax) : undefined;
  const updatedMin = typeof query.updatedMin === 'string' ? parseInstant(query.updatedMin) : undefined;
  if ((query.timeMin !== undefined && timeMin === undefined) || (query.timeMax !== undefined && timeMax === undefined)) return badRequest();
  if (query.updatedMin !== undefined && updatedMin === undefined) return badRequest();
  if (timeMin !== undefined && timeMax !== undefined && timeMax <= timeMin) {
    return emptyTimeRange();
  }
  const singleEvents = query.singleEvents === true;
  if (query.orderBy === 'startTime' && !singleEvents) {
    return errors.badRequest('The requested ordering is not available for the particular query.', 'calendar', 'badRequest');
  }

  // Incremental sync: what changed since the token, deleted events included.
  let sinceSeq: number | undefined;
  if (typeof query.syncToken === 'string') {
    const clash = SYNC_INCOMPATIBLE.find((p) => query[p] !== undefined);
    if (clash) return errors.badRequest(`The ${clash} parameter cannot be used together with syncToken.`, 'calendar', 'invalid');
    const token = decodeToken(query.syncToken);
    if (!token || token.c !== calendarKey(calendar.id) || typeof token.s !== 'number') {
      // Google's answer to any token it cannot use: start over with a full sync.
      return googleError(410, 'Sync token is no longer valid, a full sync is required.', { reason: 'fullSyncRequired' }, { family: 'calendar' });
    }
    sinceSeq = token.s;
  }
  const showDeleted = query.showDeleted === true || sinceSeq !== undefined || updatedMin !== undefined;
  const q = typeof query.q === 'string' && role !== 'freeBusyReader' ? query.q : undefined;
  const window = { ...(timeMin !== undefined ? { from: timeMin } : {}), ...(timeMax !== undefined ? { to: timeMax } : {}) };
  const inWindow = (start: number, end: number) =>
    (timeMin === undefined || end > timeMin || (start === end && start >= timeMin)) && (timeMax === undefined || start < timeMax);

  const items: Item[] = [];
  for (const copy of calendar.events.values()) {
    const record = copy.record;
    if (!isVisible(call.world, record)) continue;
    if (sinceSeq !== undefined && Math.max(record.changeSeq, copy.changeSeq) <= sinceSeq) continue;
    if (typeof query.iCalUID === 'string' && record.iCalUID !== query.iCalUID) continue;
    if (updatedMin !== undefined && record.updated < updatedMin) continue;
    if (!matchesProperties(record.fields, call)) continue;
    const status = copyStatus(copy, calendar);
    // Someone who only sees free/busy sees only what blocks time.
    if (role === 'freeBusyReader' && (status === 'cancelled' || record.fields.transparency === 'transparent')) continue;
    if (!isRecurring(record)) {
      const b = timingBounds(record.timing, zone.tz);
      if ((status !== 'cancelled' || showDeleted) && inWindow(b.start, b.end) && (!q || matchesQuery(q, record.fields, record))) {
        items.push({ start: b.start, updated: record.updated, render: (ctx) => renderEvent(ctx, copy) });
      }
      continue;
    }
    items.push(...seriesItems(call, copy, status === 'cancelled', { singleEvents, showDeleted, q, window, sync: sinceSeq !== undefined }));
  }

  if (query.orderBy === 'startTime') items.sort((a, b) => a.start - b.start);
  else if (query.orderBy === 'updated') items.sort((a, b) => a.updated - b.updated);

  const pageSize = Math.min(typeof query.maxResults === 'number' ? query.maxResults : 250, 2500);
  let offset = 0;
  if (typeof query.pageToken === 'string') {
    const token = decodeToken(query.pageToken);
    if (!token || typeof token.o !== 'number' || token.c !== calendarKey(calendar.id))
      return errors.badRequest('Invalid page token value.', 'calendar', 'invalid');
    offset = token.o;
  }
  const page = items.slice(offset, offset + pageSize);
  const more = offset + pageSize < items.length;
  const ctx: RenderContext = { world, calendar, role, tz: zone.tz, ...maxAttendees(call) };
  const latest = Math.max(calendar.created, ...[...calendar.events.values()].map((c) => c.record.updated));
  const writer = ROLE_RANK[role] >= ROLE_RANK.writer;
  const body: Record<string, unknown> = {
    kind: 'calendar#events',
    etag: `"p3${(BigInt(latest) * 1000n + BigInt(world.calendar.changeSeq % 1000)).toString(32)}"`,
    summary: calendar.summary,
    ...(calendar.description && role !== 'freeBusyReader' ? { description: calendar.description } : {}),
    updated: new Date(latest).toISOString(),
    timeZone: calendar.timeZone,
    accessRole: role,
    defaultReminders: writer ? [{ method: 'popup', minutes: 10 }] : [],
  };
  if (more) body.nextPageToken = encodeToken({ c: calendarKey(calendar.id), o: offset + pageSize });
  else body.nextSyncToken = encodeToken({ c: calendarKey(calendar.id), s: world.calendar.changeSeq });
  body.items = page.map((item) => item.render(ctx));
  return ok(body);
}

interface SeriesOptions {
  singleEvents: boolean;
  showDeleted: boolean;
  q: string | undefined;
  window: { from?: number; to?: number };
  sync: boolean;
}

/**
 * A recurring series: expanded, its instances (a deleted series' instances only with showDeleted); otherwise the
 * series itself when any occurrence falls in the window, plus its exceptions as their own items — edited
 * occurrences, and cancelled ones, which Google lists even without showDeleted.
 */
function seriesItems(call: ApiCall, copy: EventCopy, seriesCancelled: boolean, o: SeriesOptions): Item[] {
  const record = copy.record;
  const tz = eventTimeZone(call.world, record);
  const matches = (i: Instance) => !o.q || matchesQuery(o.q, i.fields, record);
  const at = (i: Instance) => timingBounds(i.timing, tz).start;
  const updatedOf = (i: Instance) => Math.max(record.updated, i.exception?.updated ?? 0);
  const out: Item[] = [];
  if (o.singleEvents) {
    for (const i of instancesOf(call.world, record, o.window)) {
      const cancelled = seriesCancelled || i.status === 'cancelled';
      if ((cancelled && !o.showDeleted) || !matches(i)) continue;
      out.push({ start: at(i), updated: updatedOf(i), render: (ctx) => renderEvent(ctx, copy, i) });
    }
    return out;
  }
  if (seriesCancelled && !o.showDeleted) return out;
  if (!o.sync && instancesOf(call.world, record, o.window, 1).length === 0) return out;
  if (!o.q || matchesQuery(o.q, record.fields, record)) {
    out.push({ start: timingBounds(record.timing, tz).start, updated: record.updated, render: (ctx) => renderEvent(ctx, copy) });
  }
  if (seriesCancelled) return out;
  for (const key of record.exceptions.keys()) {
    const original = findOccurrence(call.world, record, key);
    if (!original) continue; // the series no longer has that occurrence
    const i = instanceOf(record, key, original);
    const b = timingBounds(i.timing, tz);
    if ((o.window.from !== undefined && b.end <= o.window.from) || (o.window.to !== undefined && b.start >= o.window.to)) continue;
    if (i.exception!.cancelled) out.push({ start: at(i), updated: updatedOf(i), render: (ctx) => renderCancelledInstance(ctx, copy, i) });
    else if (matches(i)) out.push({ start: at(i), updated: updatedOf(i), render: (ctx) => renderEvent(ctx, copy, i) });
  }
  return out;
}
