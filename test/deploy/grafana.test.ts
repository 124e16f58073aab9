import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { client } from '../helpers/http';
import { buildTestHub } from '../helpers/hub';

/** The dashboard in deploy/grafana graphs only what the Hub really exports: a renamed metric fails here, not in Grafana. */
test('when the Grafana dashboard is read, then every metric its queries name is one /metrics exposes', async () => {
  const dashboard = JSON.parse(readFileSync(join(__dirname, '..', '..', 'deploy', 'grafana', 'hub.json'), 'utf8'));
  const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
  const named = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:hub|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1]!)));
  expect(named.size).toBeGreaterThan(10);

  const hub = await buildTestHub();
  try {
    const text = (await client(hub.app).get('/metrics').expect(200)).text;
    const exposed = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap((m) => (m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_count`, `${m[1]}_sum`] : [m[1]!])),
    );
    expect([...named].filter((n) => !exposed.has(n))).toEqual([]);
  } finally {
    await hub.close();
  }
});
