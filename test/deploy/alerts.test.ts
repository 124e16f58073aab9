import { openRedis } from '../../src/store/redis';
import { client } from '../helpers/http';
import { captureLogs } from '../helpers/logs';
import { cuttableDb, privateRedis } from '../helpers/outages';
import { buildTestHub, type TestHub } from '../helpers/hub';
import { read, renderKustomization } from '../helpers/deploy';

/**
 * The PrometheusRule alerts only on what the Hub really exports (a renamed metric fails here, not silently in
 * Prometheus), and each alert has its entry in docs/deployment.md saying what it means and what to do.
 */

const rule = renderKustomization('deploy/kubernetes/overlays/production').find((o) => o.kind === 'PrometheusRule');
const alerts: { alert: string; expr: string; labels: { severity: string }; annotations: Record<string, string> }[] = rule.spec.groups.flatMap(
  (g: { rules: unknown[] }) => g.rules,
);

/** The PromQL grammar (ESM-only: imported on demand, as kubernetes-models is). */
let parser: (typeof import('@prometheus-io/lezer-promql', { with: { 'resolution-mode': 'import' } }))['parser'];
beforeAll(async () => ({ parser } = await import('@prometheus-io/lezer-promql')));

/** Parses PromQL with Prometheus' own grammar (the one its UI uses): the syntax errors, and the metrics it selects. */
function promql(expr: string): { errors: string[]; metrics: string[] } {
  const errors: string[] = [];
  const metrics: string[] = [];
  parser.parse(expr).iterate({
    enter: (n) => {
      if (n.type.isError) errors.push(`at ${n.from}: ${JSON.stringify(expr.slice(Math.max(0, n.from - 10), n.to + 10))}`);
      if (n.name === 'Identifier' && n.node.parent?.name === 'VectorSelector') metrics.push(expr.slice(n.from, n.to));
    },
  });
  return { errors, metrics };
}

/** The series names a scrape exposes (a histogram as its _bucket, _count and _sum), plus Prometheus' own `up`. */
async function exposed(hub: TestHub): Promise<{ names: Set<string>; text: string }> {
  const text = (await client(hub.app).get('/metrics').expect(200)).text;
  const names = new Set(
    [...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap((m) => (m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_count`, `${m[1]}_sum`] : [m[1]!])),
  );
  return { names: names.add('up'), text };
}

describe('the alert rules (deploy/kubernetes/base/prometheusrule.yaml)', () => {
  let hub: TestHub;
  // No webhook dispatcher pass during the test: the outbox row below stays as it is put.
  beforeAll(async () => (hub = await buildTestHub({ env: { HUB_WEBHOOK_POLL_MS: '60000', HUB_METRICS_CONNECTIONS_TTL_S: '1' } })), 120_000);
  afterAll(() => hub.close());

  it('when every alert expression is parsed as PromQL, then it is valid, and a broken one is caught', () => {
    for (const a of alerts) expect({ alert: a.alert, errors: promql(a.expr).errors }).toEqual({ alert: a.alert, errors: [] });
    expect(promql('sum(rate(hub_tool_calls_total[5m])').errors).not.toEqual([]);
    expect(promql('max by (integration) hub_circuit_breaker_state == 2 and').errors).not.toEqual([]);
  });

  it('when every alert expression is read, then each metric it selects is one /metrics exposes', async () => {
    const { names } = await exposed(hub);
    const named = new Set(alerts.flatMap((a) => promql(a.expr).metrics));
    expect(named.size).toBeGreaterThan(8);
    expect([...named].filter((n) => !names.has(n))).toEqual([]);
  });

  it('when an alert fires, then it has a severity, a summary and a section in docs/deployment.md saying what to do', () => {
    const docs = read('docs/deployment.md');
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    for (const a of alerts) {
      expect({ alert: a.alert, severity: a.labels.severity }).toEqual({ alert: a.alert, severity: expect.stringMatching(/^(critical|warning)$/) });
      expect(a.annotations.summary).toBeTruthy();
      expect(a.annotations.runbook).toBe(`docs/deployment.md#${a.alert.toLowerCase()}`);
      expect({ alert: a.alert, documented: docs.includes(`### ${a.alert}\n`) }).toEqual({ alert: a.alert, documented: true });
    }
  });

  it('when a webhook delivery is overdue, then the backlog gauges show it, and the database reads as up', async () => {
    await hub.testDb.db.query(
      `INSERT INTO webhook_outbox (event_id, event_type, customer_id, target, body, next_attempt_at)
       VALUES (gen_random_uuid(), 'connection.connected', gen_random_uuid(), 'hub', '{}', now() - interval '10 minutes')`,
    );
    await new Promise((r) => setTimeout(r, 1_100)); // past the 1 s cache of the earlier scrape
    const { text } = await exposed(hub);
    expect(text).toMatch(/^hub_webhook_outbox_pending 1$/m);
    expect(Number(/^hub_webhook_outbox_overdue_seconds (\S+)$/m.exec(text)![1])).toBeGreaterThanOrEqual(600);
    expect(text).toMatch(/^hub_dependency_up\{dependency="database"\} 1$/m);
  });

  it('when the database and Redis stop answering, then hub_dependency_up says so for each, and again when they are back', async () => {
    const redisServer = await privateRedis();
    const db = { ...cuttableDb(hub.testDb.db), close: async () => {} }; // the first Hub's database: it closes it
    const redis = await openRedis(redisServer.url, captureLogs().logger);
    const second = await buildTestHub({ db, redis, env: { HUB_REDIS_PROBE_INTERVAL_MS: '100' } });
    const up = async () => {
      const { text } = await exposed(second);
      return Object.fromEntries([...text.matchAll(/^hub_dependency_up\{dependency="(\w+)"\} (\d)$/gm)].map((m) => [m[1], Number(m[2])]));
    };
    try {
      expect(await up()).toEqual({ database: 1, redis: 1 });
      db.cut();
      await redisServer.stop(); // once: a killed server has no exit code, so a second stop would wait for ever
      await new Promise((r) => setTimeout(r, 1_000)); // the Redis breaker's probe notices (every 100 ms here)
      expect(await up()).toEqual({ database: 0, redis: 0 });
      db.restore();
      expect((await up()).database).toBe(1);
    } finally {
      await second.close();
      redis.disconnect();
    }
  }, 120_000); // a second Hub to build: slow on a loaded machine
});
