import { type ApiCall, type ApiResult, ok } from '../api/types';
import { errors, googleError } from '../google-errors';
import type { Account } from '../world';
import { findCalendar, isPrimaryOf, resolveCalendarId, roleOf, visibleCalendars } from './access';
import { type AccessRole, ROLE_RANK, type StoredCalendar } from './state';

/**
 * `calendarList.list/get` (the caller's own calendars and those shared with it, with its access role) and
 * `settings.get` (the caller's user settings, `timezone` being the account's zone).
 */

/** Google's calendar palette (colorId → background), with black text. */
const PALETTE: Array<[string, string]> = [
  ['14', '#9fe1e7'],
  ['7', '#42d692'],
  ['15', '#9fc6e7'],
  ['9', '#7bd148'],
  ['17', '#9a9cff'],
  ['4', '#fa573c'],
  ['1', '#ac725e'],
];

function colourOf(calendar: StoredCalendar): [string, string] {
  let h = 0;
  for (const c of calendar.id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

function entry(calendar: StoredCalendar, role: AccessRole, account: Account): Record<string, unknown> {
  const [colorId, backgroundColor] = colourOf(calendar);
  const primary = isPrimaryOf(calendar, account.email);
  const writer = ROLE_RANK[role] >= ROLE_RANK.writer;
  return {
    kind: 'calendar#calendarListEntry',
    etag: `"${calendar.created * 1000}"`,
    id: calendar.id,
    summary: calendar.summary,
    ...(calendar.description ? { description: calendar.description } : {}),
    timeZone: calendar.timeZone,
    colorId,
    backgroundColor,
    foregroundColor: '#000000',
    selected: true,
    accessRole: role,
    defaultReminders: writer ? [{ method: 'popup', minutes: 10 }] : [],
    ...(primary
      ? {
          notificationSettings: {
            notifications: ['eventCreation', 'eventChange', 'eventCancellation', 'eventResponse'].map((type) => ({ type, method: 'email' })),
          },
          primary: true,
        }
      : {}),
    conferenceProperties: { allowedConferenceSolutionTypes: ['hangoutsMeet'] },
  };
}

/**
 * calendarList.list as Google documents it (Discovery calendar-v3.json; developers.google.com
 * /calendar/api/v3/reference/calendarList/list): pages of at most 250 (default 100); `nextPageToken` while more
 * remain, and on the last page `nextSyncToken` instead ("Omitted if further results are available"). A sync token
 * cannot be combined with `minAccessRole`, nor with `showDeleted`/`showHidden` set to false; one that "expires"
 * gets 410 GONE and the client must list in full again. The sandbox keeps no history of list entries, so each
 * of its sync tokens has expired by the time it comes back: a client always meets the 410 path Google documents.
 */
export function listCalendarList(call: ApiCall): ApiResult {
  if (typeof call.query.syncToken === 'string') {
    if (call.query.minAccessRole !== undefined) {
      return errors.badRequest('The minAccessRole parameter cannot be used together with syncToken.', 'calendar', 'invalid');
    }
    const falseFlag = (['showDeleted', 'showHidden'] as const).find((p) => call.query[p] === false);
    if (falseFlag) return errors.badRequest(`The ${falseFlag} parameter cannot be set to false together with syncToken.`, 'calendar', 'invalid');
    return googleError(410, 'Sync token is no longer valid, a full sync is required.', { reason: 'fullSyncRequired' }, { family: 'calendar' });
  }
  const min = typeof call.query.minAccessRole === 'string' ? ROLE_RANK[call.query.minAccessRole as AccessRole] : 0;
  const all = visibleCalendars(call.world, call.account)
    .filter(({ role }) => ROLE_RANK[role] >= min)
    // The primary calendar first, then the others in the order they appeared.
    .sort((a, b) => Number(isPrimaryOf(b.calendar, call.account.email)) - Number(isPrimaryOf(a.calendar, call.account.email)));
  const size = typeof call.query.maxResults === 'number' ? Math.min(call.query.maxResults, 250) : 100;
  let offset = 0;
  if (typeof call.query.pageToken === 'string') {
    const parsed = /^o(\d+)$/.exec(Buffer.from(call.query.pageToken, 'base64url').toString('utf8'));
    if (!parsed) return errors.badRequest('Invalid page token value.', 'calendar', 'invalid');
    offset = Number(parsed[1]);
  }
  const page = all.slice(offset, offset + size);
  const latest = Math.max(0, ...all.map((c) => c.calendar.created));
  const more = offset + size < all.length;
  return ok({
    kind: 'calendar#calendarList',
    etag: `"p3${(BigInt(latest) * 1000n).toString(32)}"`,
    ...(more
      ? { nextPageToken: Buffer.from(`o${offset + size}`).toString('base64url') }
      : { nextSyncToken: Buffer.from(`s${call.world.calendar.changeSeq}`).toString('base64url') }),
    items: page.map(({ calendar, role }) => entry(calendar, role, call.account)),
  });
}

export function getCalendarListEntry(call: ApiCall): ApiResult {
  const calendar = findCalendar(call.world, resolveCalendarId(call.account, call.params.calendarId!));
  const role = calendar && roleOf(calendar, call.account.email);
  if (!calendar || !role) return errors.notFound('calendar');
  return ok(entry(calendar, role, call.account));
}

/** Google's user settings with their defaults; `timezone` follows the account. */
const SETTINGS: Record<string, (account: Account) => string> = {
  autoAddHangouts: () => 'false',
  dateFieldOrder: () => 'MDY',
  defaultEventLength: () => '60',
  format24HourTime: () => 'false',
  hideInvitations: () => 'false',
  hideWeekends: () => 'false',
  locale: () => 'en',
  remindOnRespondedEventsOnly: () => 'false',
  showDeclinedEvents: () => 'true',
  timezone: (account) => account.timeZone,
  useKeyboardShortcuts: () => 'true',
  weekStart: () => '0',
};

export function getSetting(call: ApiCall): ApiResult {
  const id = call.params.setting!;
  const value = Object.hasOwn(SETTINGS, id) ? SETTINGS[id]!(call.account) : undefined;
  if (value === undefined) return errors.notFound('calendar');
  const created = findCalendar(call.world, call.account.email)?.created ?? 0;
  return ok({ kind: 'calendar#setting', etag: `"${created * 1000}"`, id, value });
}
