import { z } from 'zod';
import { ALPHABETS } from '../random';
import { type Account, type World, accountKey } from '../world';
import { calendarKey, ensurePrimaryCalendar, findCalendar, roleOf } from './access';
import { createEvent } from './events-insert';
import { syncGuestCopies } from './invites';
import { invitationSeedFields, setInvitationPolicy } from './settings';
import { isValidEventId, normalizeEvent } from './model';
import { ROLE_RANK, type StoredCalendar } from './state';
import { isValidTimeZone } from './time';

/**
 * Seeding through the control API (`POST /_sandbox/accounts`, `POST /_sandbox/accounts/{email}/events`):
 * calendars, who they are shared with, and events, written through the same validation as `events.insert` so a
 * seed cannot create what the API would refuse. Everything is checked before anything is written.
 */

const role = z.enum(['freeBusyReader', 'reader', 'writer', 'owner']);
const share = z.strictObject({ email: z.email(), role });
const timeZone = z.string().refine(isValidTimeZone, { message: 'must be an IANA time zone such as Europe/Madrid' });
const when = z.union([z.string().min(1), z.strictObject({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD') })]);

export const calendarSeedFields = {
  ...invitationSeedFields,
  calendars: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(1024).optional(),
        summary: z.string().min(1),
        description: z.string().optional(),
        time_zone: timeZone.optional(),
        shared_with: z.array(share).optional(),
      }),
    )
    .optional(),
  primary_shared_with: z.array(share).optional(),
  events: z
    .array(
      z.strictObject({
        calendar_id: z.string().min(1).optional(),
        id: z.string().optional(),
        summary: z.string(),
        description: z.string().optional(),
        location: z.string().optional(),
        start: when,
        end: when,
        time_zone: timeZone.optional(),
        attendees: z
          .array(
            z.strictObject({
              email: z.email(),
              display_name: z.string().optional(),
              response_status: z.enum(['needsAction', 'declined', 'tentative', 'accepted']).optional(),
              optional: z.boolean().optional(),
            }),
          )
          .optional(),
        status: z.enum(['confirmed', 'tentative', 'cancelled']).optional(),
        transparency: z.enum(['opaque', 'transparent']).optional(),
        recurrence: z.array(z.string()).optional(),
      }),
    )
    .optional(),
};

export type CalendarSeed = z.infer<ReturnType<typeof z.object<typeof calendarSeedFields>>>;
type EventSeed = NonNullable<CalendarSeed['events']>[number];

type Result = { ok: true } | { ok: false; message: string };

/** The seed's event in Calendar API form, as a client would insert it. */
function asApiEvent(e: EventSeed): Record<string, unknown> {
  const time = (v: EventSeed['start']) =>
    typeof v === 'string'
      ? { dateTime: v, ...(e.time_zone ? { timeZone: e.time_zone } : {}) }
      : { date: v.date, ...(e.time_zone ? { timeZone: e.time_zone } : {}) };
  const body: Record<string, unknown> = { summary: e.summary, start: time(e.start), end: time(e.end) };
  for (const k of ['id', 'description', 'location', 'status', 'transparency', 'recurrence'] as const) if (e[k] !== undefined) body[k] = e[k];
  if (e.attendees) {
    body.attendees = e.attendees.map((a) => ({
      email: a.email,
      ...(a.display_name ? { displayName: a.display_name } : {}),
      ...(a.response_status ? { responseStatus: a.response_status } : {}),
      ...(a.optional ? { optional: true } : {}),
    }));
  }
  return body;
}

const messageOf = (error: { body?: unknown }) => (error.body as { error?: { message?: string } } | undefined)?.error?.message ?? 'invalid event';

/**
 * Creates the account's primary calendar if it has none (every account has one), its seeded calendars, shares
 * and events; or changes nothing and says why.
 */
export function seedAccountCalendars(world: World, account: Account, seed: CalendarSeed): Result {
  const now = world.clock.now();
  const owner = accountKey(account.email);

  // 1. Check everything.
  const newCalendars: StoredCalendar[] = [];
  for (const [i, c] of (seed.calendars ?? []).entries()) {
    const id = c.id ?? `c_${world.random.string(26, ALPHABETS.base32hex)}@group.calendar.google.com`;
    if (id === 'primary' || findCalendar(world, id) || newCalendars.some((n) => calendarKey(n.id) === calendarKey(id))) {
      return { ok: false, message: `calendars[${i}]: calendar ${id} already exists` };
    }
    const acl = new Map((c.shared_with ?? []).map((s) => [accountKey(s.email), s.role] as const));
    acl.delete(owner);
    newCalendars.push({
      id,
      summary: c.summary,
      timeZone: c.time_zone ?? account.timeZone,
      owner,
      acl,
      created: now,
      events: new Map(),
      ...(c.description ? { description: c.description } : {}),
    });
  }
  const existingPrimary = findCalendar(world, account.email);
  const primaryTz = existingPrimary?.timeZone ?? account.timeZone;
  const planned: Array<{ calendarId: string; body: Record<string, unknown> }> = [];
  const takenIds = new Set<string>();
  for (const [i, e] of (seed.events ?? []).entries()) {
    const target = e.calendar_id ?? 'primary';
    const calendarId = target === 'primary' ? account.email : target;
    const seeded = newCalendars.find((n) => calendarKey(n.id) === calendarKey(calendarId));
    const existing = seeded ? undefined : findCalendar(world, calendarId);
    const own = calendarKey(calendarId) === owner;
    const writable = seeded || own || (existing && ROLE_RANK[roleOf(existing, account.email) ?? 'freeBusyReader'] >= ROLE_RANK.writer);
    if (!writable) return { ok: false, message: `events[${i}]: unknown calendar_id ${target}` };
    const tz = seeded?.timeZone ?? existing?.timeZone ?? primaryTz;
    const body = asApiEvent(e);
    const normalized = normalizeEvent(body, { calendarTz: tz, supportsAttachments: false });
    if (!normalized.ok) return { ok: false, message: `events[${i}]: ${messageOf(normalized.error)}` };
    if (e.id !== undefined) {
      const key = `${calendarKey(calendarId)} ${e.id}`;
      if (!isValidEventId(e.id)) return { ok: false, message: `events[${i}]: Invalid resource id value.` };
      if (existing?.events.has(e.id) || takenIds.has(key)) return { ok: false, message: `events[${i}]: The requested identifier already exists.` };
      takenIds.add(key);
    }
    planned.push({ calendarId, body });
  }

  // 2. Write.
  setInvitationPolicy(world, account.email, seed);
  const primary = ensurePrimaryCalendar(world, account, now);
  for (const s of seed.primary_shared_with ?? []) if (accountKey(s.email) !== owner) primary.acl.set(accountKey(s.email), s.role);
  for (const c of newCalendars) world.calendar.calendars.set(calendarKey(c.id), c);
  for (const p of planned) {
    const created = createEvent(world, findCalendar(world, p.calendarId)!, account.email, p.body, now, false);
    if (!created.ok) return { ok: false, message: messageOf(created.error) }; // checked above; unreachable
  }
  // Invitations sent before this account existed now reach its calendar.
  for (const calendar of world.calendar.calendars.values()) {
    for (const copy of calendar.events.values()) if (copy.record.calendarId === calendar.id) syncGuestCopies(world, copy.record);
  }
  return { ok: true };
}
