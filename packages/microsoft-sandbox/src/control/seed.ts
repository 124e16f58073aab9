import { z } from 'zod';
import { changeKey, folderId, guid, immutableItemId, restItemId } from '../ids';
import { mailboxOf } from '../graph/context';
import { type Calendar, type EventRec, type MessageRec, folderByName, newMessageIds } from '../graph/mailbox';
import { newConversation, newInternetMessageId } from '../graph/send';
import { CALENDAR_ROLES, defaultSharing } from '../graph/sharing';
import { ianaOf, windowsOf } from '../graph/time';
import { ALPHABETS } from '../random';
import { type Person, type Tenant, type World, findPerson } from '../world';

/** Building a world: tenants, people, their events and mail — for the control API and the demo world alike. */

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; message: string };
const fail = (status: number, message: string): Outcome<never> => ({ ok: false, status, message });

export const tenantSpecSchema = z.strictObject({
  id: z.uuid().optional(),
  domain: z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i),
  display_name: z.string().min(1).optional(),
  user_consent: z.enum(['users', 'admin']).optional(),
});

export function createTenant(world: World, spec: z.infer<typeof tenantSpecSchema>): Outcome<Tenant> {
  if ([...world.tenants.values()].some((t) => t.domain.toLowerCase() === spec.domain.toLowerCase())) return fail(409, `tenant ${spec.domain} exists`);
  const t: Tenant = {
    id: spec.id ?? guid(world.random),
    domain: spec.domain.toLowerCase(),
    displayName: spec.display_name ?? spec.domain,
    userConsent: spec.user_consent ?? 'users',
    adminConsent: new Map(),
  };
  world.tenants.set(t.id, t);
  return { ok: true, value: t };
}

/** "My Organization"'s role and people's (existing accounts, by address) on the default calendar. */
export const calendarSharingSchema = z.strictObject({
  my_organization: z.enum(CALENDAR_ROLES).optional(),
  people: z
    .array(z.strictObject({ address: z.email(), role: z.enum(CALENDAR_ROLES) }))
    .max(100)
    .optional(),
});

const time = z.string().regex(/^\d{2}:\d{2}(:\d{2})?$/);
export const accountSpecSchema = z.strictObject({
  upn: z.email(),
  display_name: z.string().min(1).optional(),
  job_title: z.string().optional(),
  /** A Windows time-zone name ("Pacific Standard Time") or an IANA one (stored by its Windows name, as Outlook does). */
  time_zone: z.string().optional(),
  working_hours: z
    .strictObject({ days: z.array(z.enum(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'])), start: time, end: time })
    .optional(),
  /** An administrator who may grant consent for the whole tenant (the admin-consent endpoint). */
  admin: z.boolean().optional(),
  /** The default calendar's permissions (graph/sharing.ts); unset, Exchange Online's default. */
  calendar_sharing: calendarSharingSchema.optional(),
});

/** Replaces `p`'s calendar permissions with `spec`'s (an unset "My Organization" keeps the default). */
export function setCalendarSharing(world: World, p: Person, spec: z.infer<typeof calendarSharingSchema>): Outcome<Person> {
  const sharing = defaultSharing();
  if (spec.my_organization) sharing.myOrganization = spec.my_organization;
  for (const entry of spec.people ?? []) {
    const who = findPerson(world, entry.address);
    if (!who || who.tenantId !== p.tenantId) return fail(400, `no account ${entry.address} in ${p.userPrincipalName}'s organisation to share with`);
    sharing.people.set(who.id, entry.role);
  }
  p.calendarSharing = sharing;
  return { ok: true, value: p };
}

export function createPerson(world: World, spec: z.infer<typeof accountSpecSchema>): Outcome<Person> {
  if (findPerson(world, spec.upn)) return fail(409, `account ${spec.upn} exists`);
  const domain = spec.upn.split('@')[1]!.toLowerCase();
  let tenant = [...world.tenants.values()].find((t) => t.domain === domain);
  if (!tenant) {
    const made = createTenant(world, { domain });
    if (!made.ok) return made;
    tenant = made.value;
  }
  const zone = spec.time_zone ?? 'UTC';
  if (!ianaOf(zone)) return fail(400, `unknown time zone ${zone}`);
  const local = spec.upn.split('@')[0]!;
  const name = spec.display_name ?? local;
  const [given, ...rest] = name.split(' ');
  const p: Person = {
    id: guid(world.random),
    tenantId: tenant.id,
    userPrincipalName: spec.upn.toLowerCase(),
    displayName: name,
    givenName: given ?? name,
    surname: rest.join(' '),
    jobTitle: spec.job_title ?? null,
    timeZone: windowsOf(zone) ?? zone,
    workingHours: {
      daysOfWeek: spec.working_hours?.days ?? ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      startTime: (spec.working_hours?.start ?? '08:00').padEnd(8, ':00'),
      endTime: (spec.working_hours?.end ?? '17:00').padEnd(8, ':00'),
    },
    calendarSharing: defaultSharing(),
    disabled: false,
    admin: spec.admin ?? false,
    tokensValidFrom: 0,
    invalidatedBy: null,
  };
  if (spec.calendar_sharing) {
    const shared = setCalendarSharing(world, p, spec.calendar_sharing);
    if (!shared.ok) return shared;
  }
  world.people.set(p.id, p);
  mailboxOf(world, p);
  return { ok: true, value: p };
}

const instant = z.iso.datetime({ offset: true });
export const eventSpecSchema = z.strictObject({
  subject: z.string(),
  start: instant,
  end: instant,
  /** The zone the organizer wrote the event in (originalStartTimeZone): Windows or IANA. */
  time_zone: z.string().optional(),
  all_day: z.boolean().optional(),
  attendees: z.array(z.email()).optional(),
  show_as: z.enum(['free', 'tentative', 'busy', 'oof', 'workingElsewhere']).optional(),
  location: z.string().optional(),
  body_html: z.string().optional(),
});

export function addEvent(world: World, organizer: Person, spec: z.infer<typeof eventSpecSchema>): Outcome<EventRec> {
  const zone = spec.time_zone ?? organizer.timeZone;
  if (!ianaOf(zone)) return fail(400, `unknown time zone ${zone}`);
  const iCalUId = `040000008200E00074C5B7101A82E008${world.random.string(80, ALPHABETS.hex).toUpperCase()}`;
  const t = world.clock.now();
  const base = {
    changeKey: changeKey(world.random),
    iCalUId,
    transactionId: null,
    created: t,
    modified: t,
    subject: spec.subject,
    bodyHtml: spec.body_html ?? '',
    bodyType: 'html' as const,
    start: Date.parse(spec.start),
    end: Date.parse(spec.end),
    startZone: zone,
    endZone: zone,
    isAllDay: spec.all_day ?? false,
    showAs: spec.show_as ?? 'busy',
    sensitivity: 'normal' as const,
    location: spec.location ?? '',
    organizer: { name: organizer.displayName, address: organizer.userPrincipalName },
    attendees: (spec.attendees ?? []).map((a) => ({
      address: a,
      name: findPerson(world, a)?.displayName ?? a,
      type: 'required' as const,
      response: 'accepted' as const,
      responseTime: t,
    })),
    isCancelled: false,
    importance: 'normal' as const,
    categories: [],
    isReminderOn: true,
    reminderMinutes: 15,
    visibleAt: 0,
  };
  if (base.end < base.start) return fail(400, 'end before start');
  let first: EventRec | undefined;
  for (const who of [organizer, ...(spec.attendees ?? []).map((a) => findPerson(world, a)).filter((p): p is Person => !!p && p.id !== organizer.id)]) {
    const box = mailboxOf(world, who);
    const own = who.id === organizer.id;
    const cal = [...box.calendars.values()].find((c) => c.isDefault)!;
    const e: EventRec = {
      ...base,
      attendees: base.attendees.map((a) => ({ ...a })),
      id: restItemId(world.random),
      immutableId: immutableItemId(world.random),
      calendarId: cal.id,
      isOrganizer: own,
      response: own ? 'organizer' : 'accepted',
      responseTime: own ? null : t,
    };
    box.events.push(e);
    first ??= e;
  }
  return { ok: true, value: first! };
}

export const calendarSpecSchema = z.strictObject({
  name: z.string().min(1),
  /** Whose calendar it is when it was shared with this account (its address); unset: the account's own. */
  owner: z.email().optional(),
  /** For a shared calendar: whether the account may write to it (default false). */
  can_edit: z.boolean().optional(),
});

/** A further calendar in one mailbox: one the account made, or another person's shared with it. */
export function addCalendar(world: World, person: Person, spec: z.infer<typeof calendarSpecSchema>): Outcome<Calendar> {
  const box = mailboxOf(world, person);
  const id = folderId(world.random);
  const ownerPerson = spec.owner ? findPerson(world, spec.owner) : undefined;
  const shared = spec.owner !== undefined && spec.owner.toLowerCase() !== person.userPrincipalName;
  const c: Calendar = {
    id,
    name: spec.name,
    isDefault: false,
    color: 'auto',
    changeKey: changeKey(world.random),
    ...(shared
      ? { owner: { name: ownerPerson?.displayName ?? spec.owner!, address: spec.owner!.toLowerCase() }, canEdit: spec.can_edit ?? false, canShare: false }
      : {}),
  };
  box.calendars.set(id, c);
  return { ok: true, value: c };
}

const address = z.strictObject({ name: z.string().optional(), address: z.email() });
export const messageSpecSchema = z.strictObject({
  from: address,
  to: z.array(address).min(1),
  cc: z.array(address).optional(),
  /** Bcc recipients: known only on the sender's own copy (a copy in Sent Items). */
  bcc: z.array(address).optional(),
  subject: z.string(),
  html: z.string().optional(),
  text: z.string().optional(),
  received: instant,
  is_read: z.boolean().optional(),
  folder: z.string().optional(),
  /** Messages naming the same thread key share a conversationId. */
  thread: z.string().optional(),
  importance: z.enum(['low', 'normal', 'high']).optional(),
  attachments: z.array(z.strictObject({ name: z.string().min(1), content_type: z.string(), content_base64: z.base64() })).optional(),
});

/** Puts a message straight into one mailbox (mail that arrived before the world began). */
export function addMessage(
  world: World,
  owner: Person,
  spec: z.infer<typeof messageSpecSchema>,
  threads: Map<string, ReturnType<typeof newConversation>>,
): Outcome<MessageRec> {
  const box = mailboxOf(world, owner);
  const folder = folderByName(box, spec.folder ?? 'inbox');
  if (!folder) return fail(400, `no folder ${spec.folder}`);
  const conversation = spec.thread ? (threads.get(spec.thread) ?? newConversation(world)) : newConversation(world);
  if (spec.thread) threads.set(spec.thread, conversation);
  const at = Date.parse(spec.received);
  const rcpt = (a: z.infer<typeof address>) => ({ name: a.name ?? a.address, address: a.address });
  const m: MessageRec = {
    ...newMessageIds(world),
    folder: folder.id,
    created: at,
    modified: at,
    received: at,
    sent: at - 2000,
    subject: spec.subject,
    bodyHtml: spec.html ?? spec.text ?? '',
    bodyType: spec.html !== undefined ? 'html' : 'text',
    from: rcpt(spec.from),
    sender: rcpt(spec.from),
    to: spec.to.map(rcpt),
    cc: (spec.cc ?? []).map(rcpt),
    bcc: (spec.bcc ?? []).map(rcpt),
    replyTo: [],
    isRead: spec.is_read ?? false,
    isDraft: false,
    importance: spec.importance ?? 'normal',
    ...conversation,
    internetMessageId: newInternetMessageId(world, spec.from.address.split('@')[1]!),
    categories: [],
    flag: 'notFlagged',
    attachments: (spec.attachments ?? []).map((a) => ({
      id: `AAMkAG${world.random.string(100, ALPHABETS.base64url)}=`,
      name: a.name,
      contentType: a.content_type,
      bytes: Buffer.from(a.content_base64, 'base64'),
      isInline: false,
      lastModified: at,
    })),
    headers: [],
    internetHeaders: null,
    extended: [],
    visibleAt: 0,
  };
  // Mail that arrived shows its transport headers; the copies in Sent Items and Drafts have none (mailbox.ts).
  if (folder.wellKnown !== 'sentitems' && folder.wellKnown !== 'drafts') m.internetHeaders = [{ name: 'Message-ID', value: m.internetMessageId }];
  box.messages.push(m);
  return { ok: true, value: m };
}
