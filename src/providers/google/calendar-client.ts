import type { calendar_v3 } from '@googleapis/calendar';
import type { FactCache } from '../../core/fact-cache';
import type { RecentWrites } from '../../core/recent-writes';
import type { VendorCall } from '../../core/vendor-call';
import type { Result } from '../../core/errors';
import type { Logger } from '../../logger';
import type { GoogleClients } from './clients';

/**
 * What the Google calendar adapter is built from, and its one way to ask Calendar v3 something: `request` runs one
 * googleapis call through the connection's VendorCall (token, deadline, retries, breakers, classification), with
 * a client that carries the attempt's access token.
 */
export interface GoogleCalendarDeps {
  call: VendorCall;
  clients: Pick<GoogleClients, 'calendar' | 'withAccessToken'>;
  cache: FactCache;
  /** What this connection wrote lately (read-after-create.ts): every replica's, when they share Redis. */
  recent: RecentWrites;
  connection: { credentialId: string; accountEmail: string | null };
  /** The tool call's deadline: waits for Google's propagation end with it. */
  deadline: AbortSignal;
  /** Read only when an answer does not fit (a tool call's logger is made on first use). */
  readonly logger: Pick<Logger, 'warn'>;
}

export type CalendarRequest = <T>(
  operation: string,
  idempotent: boolean,
  fn: (api: calendar_v3.Calendar, options: { signal: AbortSignal; retry: false }) => Promise<T>,
) => Promise<Result<T>>;

export const calendarRequest =
  (deps: GoogleCalendarDeps): CalendarRequest =>
  (operation, idempotent, fn) =>
    deps.call({ operation, idempotent }, (signal, accessToken) =>
      fn(deps.clients.calendar(deps.clients.withAccessToken(accessToken)), { signal, retry: false }),
    );

/**
 * The key of a fact about one connection. A reconnect keeps the row (and its id) but may bring another Google
 * account, so the connected account is part of the key: a fact about the old account is never served for the new.
 */
export const factKey = (deps: GoogleCalendarDeps, fact: string): string =>
  `${fact}\u0000${deps.connection.credentialId}\u0000${deps.connection.accountEmail ?? ''}`;
