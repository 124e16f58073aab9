import { type SandboxClock, createClock } from './clock';
import type { FaultState } from './faults';
import type { Mailbox } from './graph/mailbox';
import type { IdentityState } from './identity/state';
import { type SandboxRandom, createRandom } from './random';
import type { ThrottleState } from './throttle';

/** A tenant (directory): `userConsent` off means only an administrator can consent for the organisation. */
export interface Tenant {
  id: string;
  domain: string;
  displayName: string;
  /** 'users' = users may consent to the delegated scopes an app asks for; 'admin' = an admin must (AADSTS90094). */
  userConsent: 'users' | 'admin';
  /** Scopes an administrator consented for every user of the tenant, per client id. */
  adminConsent: Map<string, Set<string>>;
}

/**
 * A person. Only work (Microsoft Entra) accounts are emulated: personal Microsoft accounts differ in what
 * Graph supports (no getSchedule — "Delegated (personal Microsoft account): Not supported" on its page — other
 * id formats, opaque tokens) and are refused at sign-in (README).
 */
export interface Person {
  id: string;
  tenantId: string;
  userPrincipalName: string;
  displayName: string;
  givenName: string;
  surname: string;
  jobTitle: string | null;
  /** A Windows time-zone name, as Outlook keeps it in mailboxSettings. */
  timeZone: string;
  workingHours: { daysOfWeek: string[]; startTime: string; endTime: string };
  /** Who may see the default calendar's free/busy: graph/sharing.ts. */
  calendarSharing: CalendarSharing;
  disabled: boolean;
  /** Holds an administrator role that may grant tenant-wide consent (Global or Cloud Application Administrator). */
  admin: boolean;
  /** Tokens issued before this instant are dead: a password change or "revoke sessions" moves it (AADSTS50173). */
  tokensValidFrom: number;
  /** Why tokensValidFrom last moved, for the error's wording. */
  invalidatedBy: 'password' | 'revoked' | null;
}

/**
 * The default calendar's permissions that decide what getSchedule shows others (calendarpermission resource):
 * "My Organization" — everyone in the tenant not listed by name — and people by their object id. Roles are
 * Graph's calendarRoleType values (none, freeBusyRead, limitedRead, read, write, …): any role but `none` lets
 * its holder see free/busy.
 */
export interface CalendarSharing {
  myOrganization: string;
  people: Map<string, string>;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  operation: string | null;
  user: string | null;
  client: string | null;
  status: number;
  fault: string | null;
  requestId: string;
}

/**
 * How long writes take to show where a client looks next (eventual consistency), in ms; the control API sets them
 * (`PUT /_sandbox/consistency`). Microsoft publishes no figure for any of them; each default is the public report
 * it rests on, or says that there is none.
 */
export interface Consistency {
  /**
   * A sent message reaches Sent Items only after Graph's 202: learn.microsoft.com/graph/outlook-things-to-know-about-send-mail
   * ("Most of the steps (steps 2 to 7) take place after the method response is returned"; step 4 moves it to Sent
   * Items once transport has taken it) and learn.microsoft.com/graph/outlook-immutable-id ("Getting the message in
   * Sent Items may not succeed immediately after sending the message. The copy of the message is not created until
   * the message successfully sends, which may take time."). How long: no public measurement. Reported:
   * github.com/Rexezuge-CloudflareWorkers/Mail-Otter/pull/189 — not searchable in Sent Items right after /reply's
   * 202, found on a retry 10 s later (its fix polls at 0, 1, 3 and 7 s). Default 2 s, within that report. Until
   * then the message shows nowhere, by id or in a list (the send-mail page has it wait in Drafts until step 4; the
   * sandbox does not show that transitional draft).
   */
  sentItemsDelayMs: number;
  /**
   * Mail and meeting invitations reach other mailboxes after the 202/201 (the same page, steps 5 and 6: transport
   * routes and delivers). Reported: Microsoft Q&A, learn.microsoft.com/answers/questions/5785202 ("How to get the
   * Room schedule information in real time or in a faster way?", 2026) — a meeting booked with a room showed in the
   * room's getSchedule only after ~40 s (Microsoft's moderator saw it at once in a cloud-only tenant). Default
   * 40 s: no kinder than that report, for mail as for invitations (no public figure for mail delivery).
   */
  deliveryDelayMs: number;
  /**
   * A new event reaches the organizer's own lists ($filter, calendarView) and getSchedule only after this. No
   * public source: no Microsoft page or public report found says the organizer's own lists lag (reads by id do
   * not, here either). Default 1 s, an assumption the Hub's read-after-create design (src/providers/microsoft/
   * calendar-recent.ts) is tested against; the only public figure, ~40 s, is for another mailbox's free/busy
   * (deliveryDelayMs above).
   */
  newEventDelayMs: number;
}

export interface World {
  readonly seed: number | undefined;
  clock: SandboxClock;
  random: SandboxRandom;
  tenants: Map<string, Tenant>;
  people: Map<string, Person>;
  mailboxes: Map<string, Mailbox>;
  identity: IdentityState;
  faults: FaultState;
  throttle: ThrottleState;
  consistency: Consistency;
  requestLog: RequestLogEntry[];
  /** Answers that departed from the CSDL (recorded when response checking is on). */
  violations: { operation: string; problems: string[] }[];
}

export function createBareWorld(seed: number | undefined, parts: Pick<World, 'identity' | 'faults' | 'throttle'>): World {
  return {
    seed,
    clock: createClock(),
    random: createRandom(seed),
    tenants: new Map(),
    people: new Map(),
    mailboxes: new Map(),
    consistency: { sentItemsDelayMs: 2000, deliveryDelayMs: 40_000, newEventDelayMs: 1000 }, // sourced on Consistency
    requestLog: [],
    violations: [],
    ...parts,
  };
}

export const emailKey = (email: string) => email.trim().toLowerCase();

export function findPerson(world: World, idOrUpn: string): Person | undefined {
  const direct = world.people.get(idOrUpn);
  if (direct) return direct;
  const key = emailKey(idOrUpn);
  for (const p of world.people.values()) if (emailKey(p.userPrincipalName) === key) return p;
  return undefined;
}
