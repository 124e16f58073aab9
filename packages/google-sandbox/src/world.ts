import { type CalendarState, createCalendarState } from './calendar/state';
import { type SandboxClock, createClock } from './clock';
import { type FaultState, createFaultState } from './faults';
import { type GmailState, createGmailState } from './gmail/state';
import { type OAuthState, type SigningKey, createOAuthState } from './oauth/state';
import { type QuotaState, createQuotaState } from './quotas';
import { type SandboxRandom, createRandom } from './random';

/** A sandbox Google account: one person, with a primary calendar (id = email) and a mailbox. */
export interface Account {
  email: string;
  name: string;
  timeZone: string;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  query: Record<string, unknown>;
  /** The Discovery method id (`calendar.events.insert`), or the OAuth endpoint (`oauth.token`). */
  operation: string | null;
  account: string | null;
  /** The token's scopes that the method accepts — what the call actually relied on. */
  scopes_used: string[];
  status: number;
  fault: string | null;
}

export interface ResponseViolation {
  operation: string;
  problems: string[];
}

/** Everything the sandbox knows. In memory only; `reset` replaces it whole. */
export interface World {
  readonly seed: number | undefined;
  clock: SandboxClock;
  random: SandboxRandom;
  accounts: Map<string, Account>;
  calendar: CalendarState;
  gmail: GmailState;
  oauth: OAuthState;
  faults: FaultState;
  /** Gmail's per-user concurrency and quota units (quotas.ts). */
  quotas: QuotaState;
  requestLog: RequestLogEntry[];
  /** Responses that departed from their Discovery schema (recorded when response checking is on). */
  violations: ResponseViolation[];
}

export interface WorldOptions {
  seed?: number;
  accessTokenLifetimeS?: number;
  signing?: SigningKey;
}

export function createWorld(options: WorldOptions = {}): World {
  const random = createRandom(options.seed);
  return {
    seed: options.seed,
    clock: createClock(),
    random,
    accounts: new Map(),
    calendar: createCalendarState(),
    gmail: createGmailState(),
    oauth: createOAuthState(options.accessTokenLifetimeS ?? 3600, options.signing),
    faults: createFaultState(),
    quotas: createQuotaState(),
    requestLog: [],
    violations: [],
  };
}

export const accountKey = (email: string) => email.trim().toLowerCase();

export function findAccount(world: World, email: string): Account | undefined {
  return world.accounts.get(accountKey(email));
}
