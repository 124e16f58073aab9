import type { ApiCall, ApiResult } from '../api/types';
import { errors } from '../google-errors';
import { type Account, type World, accountKey } from '../world';
import { type AccessRole, ROLE_RANK, type StoredCalendar } from './state';

/**
 * Who may do what on which calendar. A calendar the caller has no role on does not exist as far as they can
 * tell (404, never 403: Google hides existence); a role too weak for the operation is a 403 naming the level.
 */

export const calendarKey = (id: string) => id.trim().toLowerCase();

export function findCalendar(world: World, id: string): StoredCalendar | undefined {
  return world.calendar.calendars.get(calendarKey(id));
}

export function roleOf(calendar: StoredCalendar, email: string): AccessRole | undefined {
  const key = accountKey(email);
  return calendar.owner === key ? 'owner' : calendar.acl.get(key);
}

/** `primary` is the caller's own calendar, whose id is their email. */
export const resolveCalendarId = (account: Account, id: string) => (id === 'primary' ? account.email : id);

export type Opened = { ok: true; calendar: StoredCalendar; role: AccessRole } | { ok: false; error: ApiResult };

export function openCalendar(call: ApiCall, id: string, need: AccessRole): Opened {
  const calendar = findCalendar(call.world, resolveCalendarId(call.account, id));
  const role = calendar && roleOf(calendar, call.account.email);
  if (!calendar || !role) return { ok: false, error: errors.notFound('calendar') };
  if (ROLE_RANK[role] < ROLE_RANK[need]) {
    const level = need === 'owner' ? 'owner' : need;
    return { ok: false, error: errors.forbidden(`You need to have ${level} access to this calendar.`, 'calendar', 'requiredAccessLevel') };
  }
  return { ok: true, calendar, role };
}

/** Every account has a primary calendar: id = its email, in its time zone, created with the account. */
export function ensurePrimaryCalendar(world: World, account: Account, now: number): StoredCalendar {
  const existing = findCalendar(world, account.email);
  if (existing) return existing;
  const calendar: StoredCalendar = {
    id: account.email,
    summary: account.email,
    timeZone: account.timeZone,
    owner: accountKey(account.email),
    acl: new Map(),
    created: now,
    events: new Map(),
  };
  world.calendar.calendars.set(calendarKey(calendar.id), calendar);
  return calendar;
}

/** The calendars an account sees in its calendar list: its own and those shared with it. */
export function visibleCalendars(world: World, account: Account): Array<{ calendar: StoredCalendar; role: AccessRole }> {
  const out: Array<{ calendar: StoredCalendar; role: AccessRole }> = [];
  for (const calendar of world.calendar.calendars.values()) {
    const role = roleOf(calendar, account.email);
    if (role) out.push({ calendar, role });
  }
  return out;
}

export const isPrimaryOf = (calendar: StoredCalendar, email: string) => calendarKey(calendar.id) === accountKey(email);
