import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DatabaseTimeoutError, type Db } from '../../src/store/db';
import { openPostgres } from '../../src/store/postgres';
import { asAdmin } from '../helpers/admin';
import { ANA, SUITE_NOW } from '../helpers/calendar';
import { connectToSandbox, runTool, sandboxHubEnv } from '../helpers/connected';
import { type TestDb, openTestDb } from '../helpers/db';
import { services } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { TcpProxy } from '../helpers/proxy';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * PostgreSQL that stops answering — connections kept open, nothing forwarded (a partition, a stalled server or
 * proxy) — through a TCP proxy that black-holes it. A database that hangs is a database that is down: a call
 * that needs it answers 503 SERVICE_UNAVAILABLE (retryable, Retry-After) within the statement bound
 * (HUB_DB_QUERY_TIMEOUT_MS), never 500 and never the driver's 20 s; the Hub serves again once it answers.
 * What the audit trail does meanwhile is test/component/audit-outage.test.ts's.
 */

const BOUND_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { databaseUrl } = services();
(databaseUrl ? describe : describe.skip)('when PostgreSQL stops answering and comes back', () => {
  jest.setTimeout(40_000);
  const sb = useTestSandbox();
  let base: TestDb;
  let proxy: TcpProxy;
  let hub: TestHub;

  beforeAll(async () => {
    base = await openTestDb('postgres');
    const target = new URL(base.url!);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.up();
    const db = openPostgres({ url: proxy.urlFor(base.url!), poolMax: 5, queryTimeoutMs: BOUND_MS, logger: captureLogs().logger });
    // No credential cache: it would (rightly) answer from memory for its TTL; this is about the store.
    hub = await buildTestHub({ db, env: sandboxHubEnv(sb, { HUB_CREDENTIAL_CACHE_TTL_MS: '0' }), now: () => SUITE_NOW });
  });
  afterAll(async () => {
    proxy.resume();
    await hub.close();
    await proxy.cut();
    await base.drop();
  });

  test('then calendar_get_availability answers 503 SERVICE_UNAVAILABLE with Retry-After within the bound, /readyz 503, and both recover without a restart', async () => {
    await sb.createAccount({ email: ANA, time_zone: 'America/New_York' });
    const ana = await connectToSandbox(hub, sb, { email: ANA, integration: 'google_calendar' });
    const availability = () => runTool(hub, ana, 'calendar_get_availability', { start_date: '2027-01-18', end_date: '2027-01-19' });
    expect((await availability()).status).toBe(200);

    proxy.blackhole();
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const down = await availability();
      const ms = performance.now() - t0;
      expect(down.status).toBe(503);
      expect(down.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
      expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(ms).toBeLessThan(BOUND_MS + 1_500); // the bound, and the margin a loaded machine needs; not 20 s
    }
    expect(hub.logs.entries().some((e) => e.msg === 'credential store unavailable')).toBe(true);
    expect(hub.logs.entries().some((e) => e.msg === 'unhandled error')).toBe(false); // never a 500
    const ready = await client(hub.app).get('/readyz');
    expect(ready.status).toBe(503);
    // hub_echo needs no database: it keeps answering
    await client(hub.app).post('/api/internal/tools/execute/').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200);

    proxy.resume();
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await availability()).status;
      if (status !== 200) await sleep(250);
    }
    expect(status).toBe(200);
    expect((await client(hub.app).get('/readyz')).status).toBe(200);
  });
});

/**
 * Every statement failing as a hung database does (DatabaseTimeoutError): no endpoint of the spec answers 500 —
 * each route's own 503, or the error handler's for a route that let the outage through.
 */
describe('when every database statement times out', () => {
  const hung: Db = {
    kind: 'postgres',
    query: () => Promise.reject(new DatabaseTimeoutError(BOUND_MS)),
    exec: () => Promise.reject(new DatabaseTimeoutError(BOUND_MS)),
    transaction: () => Promise.reject(new DatabaseTimeoutError(BOUND_MS)),
    ping: () => Promise.reject(new DatabaseTimeoutError(BOUND_MS)),
    close: async () => {},
  };
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub({ db: hung });
  });
  afterAll(() => hub.close());

  test('then no GET endpoint of the API answers 500, and every 503 says when to retry', async () => {
    const spec = parse(readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const customerId = randomUUID();
    const paths = Object.keys(spec.paths).filter((p) => 'get' in spec.paths[p]! && !p.startsWith('/connect'));
    expect(paths.length).toBeGreaterThan(10);
    const answers: { path: string; status: number; retryAfter: string | undefined }[] = [];
    for (const template of paths) {
      const path = template.replace(/\{customer_id\}/g, customerId).replace(/\{[^}]+\}/g, () => randomUUID());
      const res = await client(hub.app)
        .get(path)
        .set('Authorization', path.startsWith('/api/admin') ? asAdmin() : serviceAuth());
      answers.push({ path: template, status: res.status, retryAfter: res.headers['retry-after'] });
    }
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    expect(answers.filter((a) => a.status === 503 && a.retryAfter === undefined && a.path !== '/readyz' && a.path !== '/healthz')).toEqual([]);
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(5);
  });
});
