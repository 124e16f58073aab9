import { randomUUID } from 'node:crypto';
import { createApp } from '../../src/app';
import { openPostgres } from '../../src/store/postgres';
import type { Db } from '../../src/store/db';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { type TestDb, openTestDb } from '../helpers/db';
import { services, testConfig } from '../helpers/env';
import { aCredential, anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { captureLogs } from '../helpers/logs';
import { TEST_TOOLS } from '../helpers/tools';
import { TcpProxy } from '../helpers/proxy';

/**
 * PostgreSQL and Redis failing and coming back, through a TCP proxy the test breaks (test/helpers/proxy.ts).
 * PostgreSQL cut: calls that need credentials get a retryable 503, readiness goes false, nothing crashes — and
 * service resumes without a restart. Redis black-holed is about latency (nothing waits on it), so it is measured
 * alone: test/timing/redis-black-hole.test.ts.
 */

const { databaseUrl } = services();
(databaseUrl ? describe : describe.skip)('when PostgreSQL goes away and comes back', () => {
  let testDb: TestDb;
  let proxy: TcpProxy;
  let db: Db;

  beforeAll(async () => {
    testDb = await openTestDb('postgres');
    const real = new URL(testDb.url!);
    proxy = new TcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    await proxy.up();
    db = openPostgres({ url: proxy.urlFor(testDb.url!), poolMax: 3, logger: captureLogs().logger });
  });
  afterAll(async () => {
    await db.close();
    await proxy.cut();
    await testDb.drop();
  });

  test('then credential calls answer 503 SERVICE_UNAVAILABLE and /readyz 503 while it is gone, and both recover without a restart', async () => {
    // No credential cache: it would (rightly) keep answering from memory for its TTL; this is about the store.
    const config = testConfig({ HUB_CREDENTIAL_CACHE_TTL_MS: '0' });
    const { app, store } = createApp({ config, logger: captureLogs().logger, db, tools: [...BUILT_IN_TOOLS, ...TEST_TOOLS] });
    const customerId = randomUUID();
    await store.save(aCredential({ customerId }));
    const probe = () =>
      client(app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .send(anExecuteBody({ tool: 'test_calendar_probe', customer_id: customerId, inputs: {} }));
    await probe().expect(200);

    await proxy.cut();
    const down = await probe().expect(503);
    expect(down.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
    await client(app).get('/readyz').expect(503);
    await client(app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200); // hub_echo needs no database

    await proxy.up();
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await probe()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    await client(app).get('/readyz').expect(200);
  });
});
