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

/** How long writes take to show where a client looks next (eventual consistency), in ms; the control API sets them. */
export interface Consistency {
  sentItemsDelayMs: number;
  deliveryDelayMs: number;
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
    consistency: { sentItemsDelayMs: 2000, deliveryDelayMs: 3000, newEventDelayMs: 1000 },
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
