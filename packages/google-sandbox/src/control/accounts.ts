import { z } from 'zod';
import { calendarSeedFields, seedAccountCalendars } from '../calendar/seed';
import { gmailSeedFields, seedMailbox } from '../gmail/seed';
import { type Account, type World, accountKey, findAccount } from '../world';

/**
 * Sandbox accounts: one call creates a person with a time zone, calendars (shared or not with others),
 * events and a mailbox. All-or-nothing: a seed that fails leaves the world as it was.
 */

const IANA_ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));

export const timeZoneSchema = z.string().refine((tz) => IANA_ZONES.has(tz), { message: 'must be an IANA time zone such as Europe/Madrid' });

export const accountSpecSchema = z.strictObject({
  email: z.email().transform(accountKey),
  name: z.string().min(1).max(200).optional(),
  time_zone: timeZoneSchema.optional(),
  ...calendarSeedFields,
  ...gmailSeedFields,
});

export type AccountSpec = z.infer<typeof accountSpecSchema>;

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

const displayName = (email: string) =>
  email
    .split('@')[0]!
    .split(/[._-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

/** Runs `change` on a copy-on-failure basis: the sub-states are restored if any seeding step fails. */
function atomically<T>(world: World, change: () => Outcome<T>): Outcome<T> {
  const before = { calendar: structuredClone(world.calendar), gmail: structuredClone(world.gmail), accounts: new Map(world.accounts) };
  const outcome = change();
  if (!outcome.ok) {
    world.calendar = before.calendar;
    world.gmail = before.gmail;
    world.accounts = before.accounts;
  }
  return outcome;
}

export function createAccount(world: World, spec: AccountSpec): Outcome<Account> {
  if (findAccount(world, spec.email)) return { ok: false, status: 409, message: `account ${spec.email} already exists` };
  return atomically(world, () => {
    const account: Account = { email: spec.email, name: spec.name ?? displayName(spec.email), timeZone: spec.time_zone ?? 'UTC' };
    world.accounts.set(account.email, account);
    const calendar = seedAccountCalendars(world, account, spec);
    if (!calendar.ok) return { ok: false, status: 400, message: calendar.message };
    const mail = seedMailbox(world, account, spec);
    if (!mail.ok) return { ok: false, status: 400, message: mail.message };
    return { ok: true, value: account };
  });
}

export const eventsSpecSchema = z.strictObject({ events: calendarSeedFields.events.unwrap() });
export const messagesSpecSchema = z.strictObject({ messages: gmailSeedFields.messages.unwrap() });

export function addEvents(world: World, account: Account, spec: z.infer<typeof eventsSpecSchema>): Outcome<null> {
  return atomically(world, () => {
    const r = seedAccountCalendars(world, account, spec);
    return r.ok ? { ok: true, value: null } : { ok: false, status: 400, message: r.message };
  });
}

export function addMessages(world: World, account: Account, spec: z.infer<typeof messagesSpecSchema>): Outcome<string[]> {
  return atomically(world, () => {
    const r = seedMailbox(world, account, spec);
    return r.ok ? { ok: true, value: r.ids } : { ok: false, status: 400, message: r.message };
  });
}
