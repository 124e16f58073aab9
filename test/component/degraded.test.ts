import { randomUUID } from 'node:crypto';
import { type Server, type Socket, createServer, connect } from 'node:net';
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

/**
 * PostgreSQL going away and coming back, through a TCP proxy the test can cut: calls that need credentials get
 * a retryable 503, readiness goes false, nothing crashes — and service resumes without a restart.
 */

/** A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
class CuttableProxy {
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async up(): Promise<void> {
    this.server = createServer((inbound) => {
      const outbound = connect(this.target.port, this.target.host);
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const { databaseUrl } = services();
(databaseUrl ? describe : describe.skip)('when PostgreSQL goes away and comes back', () => {
  let testDb: TestDb;
  let proxy: CuttableProxy;
  let db: Db;

  beforeAll(async () => {
    testDb = await openTestDb('postgres');
    const real = new URL(testDb.url!);
    proxy = new CuttableProxy({ host: real.hostname, port: Number(real.port || 5432) });
    await proxy.up();
    real.host = `127.0.0.1:${proxy.port}`;
    db = openPostgres({ url: real.toString(), poolMax: 3, logger: captureLogs().logger });
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
    const probe = () => client(app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody({ tool: 'test_calendar_probe', customer_id: customerId, inputs: {} }));
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
