import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Spawned, startSpawned } from '../../bench/spawned';

/**
 * One customer's hostile HTML mail must not slow anyone else down. The compiled Hub (dist/, so the HTML worker
 * loads as it does in the image) and the Google sandbox run as processes of their own; this process only sends
 * requests and times them: while Ana's agent reads and searches mail of 5,000 and 175,000 nested <div> (30 KB,
 * 1 MB) and a 400 KB newsletter, another customer's hub_echo calls keep a p99 under 50 ms, and every email call
 * answers 200 within its budget. Before the worker pool, each 1 MB message blocked the event loop ~9.5 s.
 */

jest.setTimeout(120_000);
const ANA = 'ana@acme.example';
const paragraph = '<table><tr><td style="font-family:Arial"><p>Hello <b>Ana</b>, <a href="https://example.com/n">news</a> of the week.</p></td></tr></table>';
const mail = (subject: string, html: string) => ({ from: 'news@example.com', to: [ANA], subject, html, date: '2024-01-10T09:30:00Z' });

let spawned: Spawned;
const ids: Record<string, string> = {};
beforeAll(async () => {
  if (!existsSync(join(__dirname, '..', '..', 'dist', 'src', 'main.js'))) throw new Error('dist/ is missing: npm test builds it first (npm run build)');
  spawned = await startSpawned({
    email: ANA,
    messages: [mail('deep 30 KB', '<div>x'.repeat(5_000)), mail('deep 1 MB', '<div>x'.repeat(175_000)), mail('newsletter 400 KB', paragraph.repeat(3_000))],
  });
  for (const m of spawned.messages) ids[m.subject] = m.id;
});
afterAll(() => spawned?.stop());

const agentOf = new Map<string, string>(); // one agent per customer, as in production
async function execute(customerId: string, tool: string, inputs: Record<string, unknown>) {
  const agentId = agentOf.get(customerId) ?? randomUUID();
  agentOf.set(customerId, agentId);
  const t0 = performance.now();
  const res = await fetch(`${spawned.hubUrl}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: `ServiceSecret ${spawned.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool, agent_id: agentId, customer_id: customerId, inputs }),
  });
  const body: any = await res.json();
  return { status: res.status, body, ms: performance.now() - t0 };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!;

describe('hostile HTML and everyone else', () => {
  it("when one customer reads and searches hostile HTML mail, then each call answers 200 within budget and another customer's hub_echo p99 rises by under 50 ms", async () => {
    const other = randomUUID();
    const echo = () => execute(other, 'hub_echo', { message: 'ping' });
    for (let i = 0; i < 20; i++) await echo(); // warm: connections, JIT
    const quiet: number[] = [];
    for (let i = 0; i < 200; i++) quiet.push((await echo()).ms);
    quiet.sort((a, b) => a - b);

    let hostileDone = false;
    const hostile = (async () => {
      const calls: { tool: string; status: number; ms: number; degraded: unknown }[] = [];
      try {
        for (let round = 0; round < 3; round++) {
          for (const subject of ['deep 30 KB', 'deep 1 MB', 'newsletter 400 KB']) {
            const res = await execute(spawned.customerId, 'email_read', { message_id: ids[subject] });
            calls.push({ tool: `email_read ${subject}`, status: res.status, ms: res.ms, degraded: res.body.result?.body_degraded });
          }
          const res = await execute(spawned.customerId, 'email_search', { query: '', include_body: true, max_results: 10 });
          calls.push({
            tool: 'email_search',
            status: res.status,
            ms: res.ms,
            degraded: res.body.result?.messages?.map((m: { body_degraded?: boolean }) => m.body_degraded ?? false),
          });
        }
      } finally {
        hostileDone = true;
      }
      return calls;
    })();

    const during: number[] = [];
    while (!hostileDone || during.length < 100) {
      const res = await echo();
      expect(res.status).toBe(200);
      during.push(res.ms);
    }
    const calls = await hostile;
    during.sort((a, b) => a - b);
    process.stdout.write(
      `hostile-html: echo quiet p50 ${percentile(quiet, 0.5).toFixed(1)} p99 ${percentile(quiet, 0.99).toFixed(1)} ms; during ${during.length} calls p50 ${percentile(during, 0.5).toFixed(1)} p99 ${percentile(during, 0.99).toFixed(1)} ms; email calls ${calls.map((c) => Math.round(c.ms)).join('/')} ms\n`,
    );

    for (const call of calls) {
      expect({ tool: call.tool, status: call.status }).toEqual({ tool: call.tool, status: 200 });
      // The conversion budget (HUB_HTML_BUDGET_MS, 5 s per call) bounds every call, whatever the mail.
      expect(call.ms).toBeLessThan(8_000);
    }
    expect(calls.find((c) => c.tool === 'email_read deep 1 MB')?.degraded).toBe(true);
    expect(calls.find((c) => c.tool === 'email_read newsletter 400 KB')?.degraded).toBeUndefined();
    // What hostile mail may cost everyone else: under 50 ms added to another customer's echo p99, against the
    // quiet p99 measured just before in this run. An absolute 50 ms failed CI runs on a 2-core machine shared with
    // the other suites (quiet 54.9 → during 55.5 ms; quiet 30.2 → during 59.8 ms) while passing alone (during
    // 30–41 ms); what the test exists to catch — one mail blocking the event loop for seconds — exceeds it by far.
    expect(percentile(during, 0.99)).toBeLessThan(percentile(quiet, 0.99) + 50);
  });
});
