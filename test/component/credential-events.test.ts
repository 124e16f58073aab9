import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { CREDENTIAL_CHANNEL, type CredentialEvents, openCredentialEvents } from '../../src/integrations/credential-events';
import { openPostgres } from '../../src/store/postgres';
import { openRedis } from '../../src/store/redis';
import { asAdmin } from '../helpers/admin';
import { type TestDb, openTestDb } from '../helpers/db';
import { services } from '../helpers/env';
import { CALENDAR_SCOPES, GMAIL_SCOPES, aCredential } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';

/**
 * Replicas forget a changed connection together: a disconnect on one clears the credential cache of the others
 * through Redis pub/sub at once, not after HUB_CREDENTIAL_CACHE_TTL_MS (set to a minute here to tell them apart).
 */

const { databaseUrl, redisUrl } = services();
const maybe = databaseUrl && redisUrl ? describe : describe.skip;

maybe('credential changes across replicas', () => {
  let testDb: TestDb;
  const opened: { redis: Redis[]; events: CredentialEvents[]; hubs: TestHub[] } = { redis: [], events: [], hubs: [] };

  async function replica(withEvents: boolean): Promise<TestHub> {
    const logger = captureLogs().logger;
    const redis = await openRedis(redisUrl!, logger);
    opened.redis.push(redis);
    const events = withEvents ? await openCredentialEvents(redis, logger) : undefined;
    if (events) opened.events.push(events);
    const db = openPostgres({ url: testDb.url!, poolMax: 3, logger });
    const hub = await buildTestHub({ db, redis, env: { HUB_CREDENTIAL_CACHE_TTL_MS: '60000' }, ...(events ? { credentialEvents: events } : {}) });
    opened.hubs.push(hub);
    return hub;
  }
  const probe = (hub: TestHub, customerId: string) =>
    client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send({ tool: 'test_calendar_probe', agent_id: randomUUID(), customer_id: customerId, inputs: {} });

  beforeAll(async () => {
    testDb = await openTestDb('postgres');
  });
  afterAll(async () => {
    for (const hub of opened.hubs) await hub.close();
    for (const events of opened.events) await events.close();
    for (const redis of opened.redis) await redis.quit();
    await testDb.drop();
  });

  test('when one replica disconnects a connection, then the others stop using their cached copy at once; without events they would for the TTL', async () => {
    const [a, b, c] = [await replica(true), await replica(true), await replica(false)];
    const customerId = randomUUID();
    // Two connections on one Google account: the disconnect deletes the row without revoking at Google (the
    // grant is shared), so a cached token would keep working — exactly what the event must prevent.
    await a.store.save(aCredential({ customerId, integration: 'google_calendar', accountEmail: 'shared@acme.example', scopes: CALENDAR_SCOPES }));
    await a.store.save(aCredential({ customerId, integration: 'google_gmail', accountEmail: 'shared@acme.example', scopes: GMAIL_SCOPES }));
    await probe(a, customerId).expect(200);
    await probe(c, customerId).expect(200);

    const res = await client(b.app).delete(`/api/admin/customers/${customerId}/integrations/google_calendar`).set('Authorization', asAdmin()).expect(200);
    expect(res.body).toMatchObject({ disconnected: true, revoke_skipped: 'account_in_use' });

    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
      status = (await probe(a, customerId)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(400); // INTEGRATION_NOT_CONNECTED, well within a second
    await probe(c, customerId).expect(200); // the replica without events still serves its cached copy
  });

  test('when a malformed or foreign message arrives on the channel, then it is ignored', async () => {
    const a = await replica(true);
    const customerId = randomUUID();
    await a.store.save(aCredential({ customerId, scopes: CALENDAR_SCOPES }));
    await probe(a, customerId).expect(200);
    const publisher = opened.redis[0]!;
    await publisher.publish(CREDENTIAL_CHANNEL, 'not json');
    await publisher.publish(CREDENTIAL_CHANNEL, JSON.stringify({ origin: 'x', customer_id: 'not-a-uuid', user_id: null, integration: 'google_calendar' }));
    await new Promise((r) => setTimeout(r, 50));
    await probe(a, customerId).expect(200);
  });
});
