import type { WorkingHours } from '../../src/core/working-hours';
import { storageKey } from '../../src/protection/idempotency-store';
import type { Db } from '../../src/store/db';
import { type Connected, connectToSandbox, runTool, sandboxHubEnv } from './connected';
import { CALENDAR_SCOPES, aCredential } from './factories';
import { type TestHub, buildTestHub } from './hub';
import { SCOPES, TEST_CLIENT, type TestSandbox, useTestSandbox } from './sandbox';

/**
 * The calendar tools' suites: one sandbox (reset before each test) and one Hub talking to it per file; each test
 * seeds the people it needs and connects a fresh customer, so no credential or tool cache leaks between tests.
 */

export const ANA = 'ana.garcia@acme.example';
export const JOHN = 'john@example.com';
export const JANE = 'jane@example.com';

export interface CalendarSuite {
  sb: TestSandbox;
  hub(): TestHub;
}

/**
 * The tools' "now" in these suites: fixed, so the dates the tests use (early 2027) stay in the future whenever
 * the suite runs — find_optimal_times never offers a slot in the past.
 */
export const SUITE_NOW = Date.parse('2026-12-01T12:00:00Z');

export function useCalendarSuite(env: Record<string, string> = {}): CalendarSuite {
  const sb = useTestSandbox();
  let hub: TestHub | undefined;
  beforeAll(async () => {
    hub = await buildTestHub({ env: sandboxHubEnv(sb, env), now: () => SUITE_NOW });
  });
  afterAll(async () => {
    await hub?.close();
  });
  return { sb, hub: () => hub! };
}

/** A sandbox person whose calendar the organizer may read free/busy of. */
export const sharing = (spec: Record<string, unknown> & { email: string }, withEmail = ANA) => ({
  ...spec,
  primary_shared_with: [{ email: withEmail, role: 'freeBusyReader' }],
});

/** Creates the person at the sandbox and connects a new customer (or `options.customerId` / `userId`) to their calendar. */
export async function connectPerson(
  suite: CalendarSuite,
  spec: Record<string, unknown> & { email: string },
  options: { customerId?: string; userId?: string | null; workingHours?: WorkingHours; expiresInS?: number } = {},
): Promise<Connected> {
  await suite.sb.createAccount(spec);
  const who = await connectToSandbox(suite.hub(), suite.sb, { email: spec.email, integration: 'google_calendar', ...options });
  if (options.workingHours) await suite.hub().store.setWorkingHours(who.customerId, who.userId, 'google_calendar', options.workingHours);
  return who;
}

/**
 * A customer whose stored grant says calendar.readonly + calendar.events but whose token at Google holds only
 * calendar.readonly (scopes reduced at Google after connecting): Google itself answers 403 insufficient scopes.
 */
export async function connectWithNarrowedToken(suite: CalendarSuite, email: string): Promise<Connected> {
  const grant = await suite.sb.control('POST', '/tokens', { email, scopes: [SCOPES.calendarReadonly], client_id: TEST_CLIENT.clientId, offline: true });
  const record = await suite
    .hub()
    .store.save(aCredential({ accountEmail: email, scopes: CALENDAR_SCOPES, accessToken: grant.body.access_token, refreshToken: grant.body.refresh_token }));
  return { customerId: record.customerId, userId: null, email, record };
}

/** Runs a calendar tool for `who`. */
export const calendarTool = (suite: CalendarSuite, who: Connected, tool: string, inputs: Record<string, unknown>, requestId?: string) =>
  runTool(suite.hub(), who, tool, inputs, requestId ? { requestId } : {});

export interface LoggedRequest {
  method: string;
  path: string;
  operation?: string;
  status: number;
  account?: string;
  query: Record<string, unknown>;
}

/** The Calendar API requests the sandbox logged after the call of `since` (token requests aside). */
export async function calendarRequestsSince(sb: TestSandbox, since: number): Promise<LoggedRequest[]> {
  const all = (await sb.control('GET', `/requests?since=${since}`)).body.requests as LoggedRequest[];
  return all.filter((r) => r.operation?.startsWith('calendar.'));
}

export const requestLogPosition = async (sb: TestSandbox): Promise<number> => (await sb.control('GET', '/requests')).body.next as number;

/** Events stored on a sandbox calendar (organizer copies and invitations), cancelled ones included. */
export function storedEvents(sb: TestSandbox, calendarId: string) {
  const calendar = sb.world.calendar.calendars.get(calendarId.toLowerCase());
  return calendar ? [...calendar.events.values()].map((c) => c.record) : [];
}

/** Waits until the idempotency record of a create (`who`, `requestId`) is in the database: it is written just after the answer. */
export async function createRecorded(db: Db, who: Connected, requestId: string): Promise<void> {
  const key = storageKey({ customerId: who.customerId.toLowerCase(), tool: 'calendar_create_event', requestId });
  for (let i = 0; i < 200 && (await db.query(`SELECT 1 FROM idempotency_records WHERE key = $1 AND state = 'done'`, [key])).length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * What a crash between Google's success and the Hub's record leaves: no idempotency record. A create's record is
 * written just after its answer goes out (src/protection/idempotency-deduplicated.ts), so wait for this one to
 * land — the Hub then holds it in memory no more — and delete every record.
 */
export async function loseIdempotencyRecords(db: Db, who: Connected, requestId: string): Promise<void> {
  await createRecorded(db, who, requestId);
  await db.exec('DELETE FROM idempotency_records');
}
