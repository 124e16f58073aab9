import { randomUUID } from 'node:crypto';
import { MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import { loadConfig } from '../../src/config';
import { OUTLOOK_CALENDAR_SCOPES } from '../../src/providers/microsoft/catalog';
import { startHub } from '../../src/server';
import { services, testEnv } from '../helpers/env';
import { aCredential } from '../helpers/factories';
import { captureLogs } from '../helpers/logs';
import { type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { REPLICA_KEY, REPLICA_SECRET, type Replica, execute, requireBuild, startReplica, stopAll } from './replicas';

/**
 * Outlook behind replicas: two Hub processes sharing PostgreSQL and Redis, and the Microsoft sandbox with its list
 * propagation on (a new event reaches getSchedule and calendarView only after a delay, as on Outlook). What one
 * replica created, the other knows at once — the new hour is busy there too, a repeated create is a replay — and a
 * Hub that shares no Redis with them shows Outlook's lists as they are, the hour still free.
 */

jest.setTimeout(90_000);
const { databaseUrl, redisUrl } = services();
const maybe = databaseUrl && redisUrl ? describe : describe.skip;
/** Longer than anything below takes: the lists lag for the whole test, never catching up by chance. */
const LIST_DELAY_MS = 30_000;

maybe('Outlook on replicas sharing PostgreSQL and Redis', () => {
  let world: MicrosoftWorld;
  let customer: string;
  let upn: string;
  let replicas: Replica[] = [];
  let common: Record<string, string>;

  beforeAll(async () => {
    requireBuild();
    world = await startMicrosoftWorld();
    const delay = await world.control('PUT', '/consistency', { new_event_delay_ms: LIST_DELAY_MS });
    if (delay.status >= 300) throw new Error(`sandbox /consistency: ${delay.status}`);
    upn = `replicas-${randomUUID().slice(0, 8)}@contoso.example`;
    const account = await world.control('POST', '/accounts', { upn, time_zone: 'Europe/Madrid' });
    if (account.status >= 300) throw new Error(`sandbox /accounts: ${account.status} ${JSON.stringify(account.body)}`);
    common = {
      DATABASE_URL: databaseUrl!,
      HUB_MICROSOFT_SANDBOX_URL: world.running.url,
      HUB_MICROSOFT_CLIENT_ID: MS_SANDBOX_DEFAULT_APP.clientId,
      HUB_MICROSOFT_CLIENT_SECRET: MS_SANDBOX_DEFAULT_APP.clientSecret,
      // A dead replica's lease lapses 2 s after the deadline: the repeat below comes within Graph's SKEW_MS (10 s),
      // so only the shared dedupe key can tell it is a replay (calendar-create.ts).
      HUB_TOOL_DEADLINE_MS: '3000',
    };
    // One in-process Hub on the same database applies the migrations and stores the customer's connection.
    const seeder = await startHub(loadConfig(testEnv({ ...common, HUB_SERVICE_SECRETS: REPLICA_SECRET, HUB_ENCRYPTION_KEYS: REPLICA_KEY })), {
      logger: captureLogs().logger,
    });
    const grant = await world.control('POST', '/tokens', { upn, client_id: MS_SANDBOX_DEFAULT_APP.clientId, scopes: OUTLOOK_CALENDAR_SCOPES, offline: true });
    if (grant.status !== 201) throw new Error(`sandbox /tokens: ${grant.status} ${JSON.stringify(grant.body)}`);
    customer = randomUUID();
    await seeder.store.save(
      aCredential({
        customerId: customer,
        integration: 'outlook_calendar',
        accountEmail: upn,
        scopes: [...OUTLOOK_CALENDAR_SCOPES],
        accessToken: grant.body.access_token as string,
        refreshToken: grant.body.refresh_token as string,
        tokenExpiresAt: new Date(Date.now() + Number(grant.body.expires_in) * 1000),
      }),
    );
    await seeder.close();
    replicas = await Promise.all([0, 1].map(() => startReplica({ ...common, REDIS_URL: redisUrl! })));
  });
  afterAll(async () => {
    await stopAll(replicas);
    expect(world.sandbox.world.violations).toEqual([]);
    await world.close();
  });

  const call = (replica: Replica, tool: string, inputs: Record<string, unknown>, requestId?: string) =>
    execute(replica, { tool, agent_id: randomUUID(), customer_id: customer, inputs, ...(requestId ? { context: { request_id: requestId } } : {}) });
  const busyOn = async (replica: Replica, date: string) => {
    const res = await call(replica, 'calendar_get_availability', { start_date: date, end_date: date, timezone: 'UTC' });
    expect(res.status).toBe(200);
    return (res.body.result.busy_periods as { start: string; end: string }[]).map((p) => [Date.parse(p.start), Date.parse(p.end)]);
  };
  const eventsTitled = (subject: string) => {
    const person = [...world.sandbox.world.people.values()].find((p) => p.userPrincipalName === upn)!;
    return world.sandbox.world.mailboxes.get(person.id)!.events.filter((e) => e.subject === subject);
  };

  test('when replica A creates an event, then availability asked of replica B right after shows that hour busy', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const start = '2027-03-10T10:00:00Z';
    const end = '2027-03-10T11:00:00Z';
    const created = await call(a, 'calendar_create_event', { title: 'Across replicas', start, end });
    expect(created.status).toBe(200);

    expect(await busyOn(b, '2027-03-10')).toEqual([[Date.parse(start), Date.parse(end)]]);
    expect(await busyOn(a, '2027-03-10')).toEqual([[Date.parse(start), Date.parse(end)]]);
    // Outlook's lists still lag: a Hub that shares no Redis with them sees the hour free (the risk this removes).
    const alone = await startReplica({ ...common });
    try {
      expect(await busyOn(alone, '2027-03-10')).toEqual([]);
    } finally {
      await stopAll([alone]);
    }
  });

  test('when replica A dies after creating an event, then the repeat through replica B is a replay and one event exists', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const summary = `lost answer ${randomUUID()}`;
    const requestId = `req-${randomUUID()}`;
    const inputs = { summary, start: '2027-03-11T10:00:00Z', end: '2027-03-11T11:00:00Z', delay_after_ms: 1500 };
    const inFlight = call(a, 'test_create_event', inputs, requestId).catch((err: Error) => err);
    for (let i = 0; i < 200 && eventsTitled(summary).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(eventsTitled(summary)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 700)); // A has read Graph's answer, noted what it made, and waits to answer
    a.child.kill('SIGKILL'); // the answer is lost with the replica, the event made
    expect(await inFlight).toHaveProperty('message', 'fetch failed');
    replicas[0] = await startReplica({ ...common, REDIS_URL: redisUrl! });

    let final: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 80 && final?.status !== 200; i++) {
      final = await call(b, 'test_create_event', inputs, requestId);
      if (final.status !== 200) {
        expect(final.status).toBe(409); // the dead replica's lease, until it lapses
        expect(final.body.error.retryable).toBe(true);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(final?.status).toBe(200);
    // Graph answered the repeat with the first event; B knows the key made it (A's record), so it is a replay.
    expect(final?.body.result).toMatchObject({ created: false });
    expect(eventsTitled(summary)).toHaveLength(1);
  });
});
