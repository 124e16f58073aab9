import { randomUUID } from 'node:crypto';
import { openPostgres } from '../../src/store/postgres';
import { anExecuteBody } from '../helpers/factories';
import { services } from '../helpers/env';
import { serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { cuttableDb } from '../helpers/outages';
import { TcpProxy } from '../helpers/proxy';
import request from 'supertest';

/**
 * The audit trail never slows or fails a call: with PostgreSQL cut for 5 seconds while calls keep coming, every
 * call still answers (fast), and once the database is back every receipt is written — or, when the outage
 * outlasts HUB_AUDIT_RETRY_S, the drops are counted (onDrop) and warned about. Against the real server through a
 * TCP proxy (test/helpers/proxy.ts) that drops every connection when PostgreSQL is configured, else PGlite whose
 * queries fail as an unreachable server's do. A server that stops answering with its connections left open (the
 * proxy's black hole) is an outage too: the batch whose statement timed out is retried, not dropped.
 */

const OUTAGE_MS = 5_000;

interface Outage {
  hub: TestHub;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** PostgreSQL only: connections stay open, nothing is forwarded, until restore(). */
  blackhole(): void;
  close(): Promise<void>;
}

async function hubWithCuttableDatabase(env: Record<string, string>): Promise<Outage> {
  const base = await buildTestHub(); // a migrated schema of its own; its Hub is not used
  const url = base.testDb.url;
  let proxy: TcpProxy | undefined;
  let db;
  if (services().databaseUrl && url) {
    const target = new URL(url);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.up();
    db = openPostgres({ url: proxy.urlFor(url), poolMax: 5, logger: captureLogs().logger });
  } else {
    db = cuttableDb(base.testDb.db);
  }
  const hub = await buildTestHub({
    db,
    env: { HUB_AUDIT_FLUSH_MS: '50', HUB_RATE_LIMIT_CUSTOMER_POINTS: '1000000', HUB_RATE_LIMIT_AGENT_POINTS: '1000000', ...env },
  });
  return {
    hub,
    cut: async () => (proxy ? proxy.cut() : (db as ReturnType<typeof cuttableDb>).cut()),
    restore: async () => {
      if (!proxy) return (db as ReturnType<typeof cuttableDb>).restore();
      proxy.resume();
      if (!proxy.listening) await proxy.up();
    },
    blackhole: () => proxy!.blackhole(),
    close: async () => {
      proxy?.resume();
      await hub.close();
      await proxy?.cut();
      await base.close();
    },
  };
}

/** Calls hub_echo back to back for `ms`, 4 at a time; every answer's status and duration. */
async function load(hub: TestHub, customerId: string, ms: number) {
  const results: { status: number; ms: number }[] = [];
  const until = Date.now() + ms;
  const worker = async () => {
    const agentId = randomUUID();
    while (Date.now() < until) {
      const t0 = performance.now();
      const res = await request(hub.app)
        .post('/api/internal/tools/execute/')
        .set('Authorization', serviceAuth())
        .send(anExecuteBody({ customer_id: customerId, agent_id: agentId }));
      results.push({ status: res.status, ms: performance.now() - t0 });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return results;
}

test('when PostgreSQL is cut for 5 s under load, then every call still answers 200 and every receipt is written once it is back', async () => {
  const o = await hubWithCuttableDatabase({ HUB_AUDIT_RETRY_S: '120' });
  try {
    const customerId = randomUUID();
    await load(o.hub, customerId, 500);
    await o.cut();
    const during = await load(o.hub, customerId, OUTAGE_MS);
    await o.restore();
    const after = await load(o.hub, customerId, 500);
    const all = [...during, ...after];
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThan(20);
    const sorted = during.map((r) => r.ms).sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.95)]!).toBeLessThan(1_000); // generous: a loaded, shared machine
    await o.hub.audit.drain(30_000);
    const stats = o.hub.audit.stats();
    expect(stats).toMatchObject({ queued: 0, dropped: 0 });
    const [row] = await o.hub.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_receipts WHERE customer_id = $1', [customerId]);
    expect(row!.n).toBe(stats.written);
    expect(o.hub.logs.entries().some((l) => l.msg === 'audit receipts: database unavailable; keeping rows and retrying')).toBe(true);
  } finally {
    await o.close();
  }
}, 60_000);

test('when the outage outlasts HUB_AUDIT_RETRY_S, then calls still answer and the receipts that waited too long are dropped, counted and warned about', async () => {
  const o = await hubWithCuttableDatabase({ HUB_AUDIT_RETRY_S: '1' });
  try {
    const customerId = randomUUID();
    await o.cut();
    const during = await load(o.hub, customerId, 3_000);
    expect(during.every((r) => r.status === 200)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));
    await o.restore();
    await o.hub.audit.drain(30_000);
    const { dropped, written } = o.hub.audit.stats();
    expect(dropped).toBeGreaterThan(0);
    expect(dropped + written).toBe(during.length);
    expect(o.hub.logs.entries().some((l) => l.msg === 'audit receipts: rows dropped' && l.reason === 'database unavailable')).toBe(true);
  } finally {
    await o.close();
  }
}, 60_000);

(services().databaseUrl ? test : test.skip)(
  'when PostgreSQL stops answering for 5 s under load (connections left open), then every call still answers 200 and every receipt is there once it answers again',
  async () => {
    const o = await hubWithCuttableDatabase({ HUB_AUDIT_RETRY_S: '120' });
    try {
      const customerId = randomUUID();
      const before = await load(o.hub, customerId, 500);
      o.blackhole();
      const during = await load(o.hub, customerId, OUTAGE_MS); // longer than a statement's bound: batches time out
      await o.restore();
      const after = await load(o.hub, customerId, 500);
      const all = [...before, ...during, ...after];
      expect(all.every((r) => r.status === 200)).toBe(true);
      expect(during.length).toBeGreaterThan(20);
      await o.hub.audit.drain(30_000);
      expect(o.hub.audit.stats()).toMatchObject({ queued: 0, dropped: 0 });
      const [row] = await o.hub.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_receipts WHERE customer_id = $1', [customerId]);
      expect(row!.n).toBe(all.length); // each once: a batch retried after its statement timed out wrote nothing twice
      const logs = o.hub.logs.entries();
      expect(logs.some((l) => l.msg === 'audit receipts: database unavailable; keeping rows and retrying')).toBe(true);
      expect(logs.some((l) => l.msg === 'audit receipts: batch refused by the database; dropped')).toBe(false);
    } finally {
      await o.close();
    }
  },
  60_000,
);
