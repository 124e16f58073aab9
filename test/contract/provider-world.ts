import type { CalendarPort } from '../../src/core/calendar';
import type { MailPort } from '../../src/core/mail';

/**
 * What the port contract suite needs from a provider under test: a sandbox world in which it can make accounts
 * with calendars and mail, inject the vendor's failures, and build the provider's adapters for an account exactly
 * as the Hub builds them for one tool call (one VendorCall per adapter, one attempt per request: the suite sees
 * each answer as the vendor gave it, the way the resilience layer would). A new provider writes one such factory
 * (see google-world.ts) and passes the suite before its first tool runs on it.
 */

export interface SeedEvent {
  title: string;
  /** RFC 3339 with an offset. */
  start: string;
  end: string;
}

export interface SeedMessage {
  from: string;
  subject: string;
  text: string;
  /** ISO 8601 UTC. */
  date: string;
}

export interface AccountSpec {
  /** The local part; the world picks its domain. */
  name: string;
  /** IANA zone of the account's calendar. */
  timeZone: string;
  events?: SeedEvent[];
  messages?: SeedMessage[];
  /** Addresses that may read this account's free/busy. */
  sharesFreeBusyWith?: string[];
}

/** A vendor operation the suite can make fail, in the port's words. */
export type FaultedOperation = 'event.get' | 'event.create' | 'mail.search' | 'mail.send';
/** A family of vendor failures, each with one contract code the adapter must map it to. */
export type FaultKind = 'rate_limited' | 'server_error' | 'token_rejected' | 'permission_denied';

export interface ProviderWorld {
  /** Creates the account (with its calendar, events and mail) and answers its address. */
  account(spec: AccountSpec): Promise<string>;
  /** An address no account of the world has. */
  nobody(): string;
  calendar(address: string): CalendarPort;
  mail(address: string): MailPort;
  /**
   * The next request for `operation` fails with `kind`. `applied`: the vendor carries the request out first and
   * then fails it (the answer is lost; the effect stays).
   */
  fault(operation: FaultedOperation, kind: FaultKind, options?: { applied?: boolean }): Promise<void>;
  /** Forgets every account, event, message and fault. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface ProviderFactory {
  /** The provider's name, for the suite's titles. */
  name: string;
  start(): Promise<ProviderWorld>;
  /**
   * Cases of the suite the provider is known to fail today, by case id, with why. They run as `it.failing`: the
   * run stays green while they fail and turns red the day one passes (then remove it here). Never a way to skip.
   */
  divergences?: Readonly<Record<string, string>>;
}

/** `it`, or `it.failing` for a case the provider declares it fails (its reason shown in the title). */
export function contractCase(provider: ProviderFactory, id: string, title: string, fn: () => Promise<void>): void {
  const divergence = provider.divergences?.[id];
  if (divergence === undefined) it(title, fn);
  else it.failing(`${title} [known divergence: ${divergence}]`, fn);
}
