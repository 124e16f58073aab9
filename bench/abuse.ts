import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { Client } from 'pg';
import { ownSchema } from './pg-schema';

/**
 * `npm run bench:abuse`: can one credential hurt another customer? A Hub in its own process (on a PostgreSQL
 * server: BENCH_DATABASE_URL or DATABASE_URL, a schema of the run's own) serves a victim customer's `hub_echo`
 * at a steady rate throughout, while — interleaved with quiet periods in the same run — one service key scoped to
 * another customer, one agent and two tools:
 *   1. floods POST /mcp with batches of 20 `tools/list` from BENCH_ATTACKERS connections (in slices, each after a
 *      quiet slice), then
 *   2. sends 2,000 `TOOL_NOT_FOUND` execute calls with bulky inputs from as many connections.
 * Printed: the victim's p50/p99 in the quiet periods and under each attack, the attacker's share of answers
 * refused 429 (per MCP message; per HTTP call), the Hub's CPU (its share of a core, all threads) and RSS, and how much the audit table grew for the 2,000
 * refused calls (pg_total_relation_size over the phase, and the attacker's own rows by pg_column_size).
 * Targets: victim p50 under attack <= 2 x quiet; growth <= 2 MB for 2,000 refused calls.
 *
 * Loopback only; every loop is bounded by a deadline and a count. The Hub's limits are sized so the victim's
 * steady rate stays within them (a customer that buys that much): the attacker meets them, the victim must not.
 * Knobs: BENCH_PHASE_SECONDS (default 8: the MCP flood's total, in BENCH_ROUNDS slices after as many quiet ones,
 * default 4; the quiet period after each flood), BENCH_VICTIM_RPS (default 20), BENCH_ATTACKERS (default 4).
 */

const env = process.env; // bench entry point: reads its own knobs, hands the Hub a complete environment
const PHASE_S = Number(env.BENCH_PHASE_SECONDS ?? 8);
const VICTIM_RPS = Number(env.BENCH_VICTIM_RPS ?? 20);
const ATTACKERS = Number(env.BENCH_ATTACKERS ?? 4);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 4);
const REFUSED_CALLS = 2_000;
const BATCH = 20;
const SECRET = randomBytes(32).toString('hex');
const ADMIN_JWT_SECRET = randomBytes(32).toString('hex');

type Phase = 'quiet' | 'mcp-flood' | 'not-found-flood';

function startHub(childEnv: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; base: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'baselines', 'hub.js'), [], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (m: { port: number }) => resolve({ child, base: `http://127.0.0.1:${m.port}` }));
    child.once('exit', (code) => reject(new Error(`the Hub exited with ${code}`)));
  });
}

/** The process's CPU time (user + system, all threads) in ms; Linux only. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks at USER_HZ = 100
};

const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : Number.NaN;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** The victim: hub_echo at VICTIM_RPS, open loop (a slow answer does not delay the next call), tagged by phase. */
function victim(base: string, customerId: string, phase: () => Phase) {
  const samples: Record<Phase, number[]> = { quiet: [], 'mcp-flood': [], 'not-found-flood': [] };
  let failures = 0;
  let stop = false;
  let inFlight = 0;
  const body = JSON.stringify({ tool: 'hub_echo', agent_id: randomUUID(), customer_id: customerId, inputs: { message: 'still here?' } });
  const one = async () => {
    const tag = phase();
    const t0 = performance.now();
    inFlight++;
    try {
      const res = await fetch(`${base}/api/internal/tools/execute/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `ServiceSecret ${SECRET}` },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
      else samples[tag].push(performance.now() - t0);
    } catch {
      failures++;
    } finally {
      inFlight--;
    }
  };
  const loop = (async () => {
    const period = 1000 / VICTIM_RPS;
    const start = performance.now();
    for (let i = 0; !stop && i < 1_000_000; i++) {
      if (inFlight < 64) void one();
      const wait = start + (i + 1) * period - performance.now();
      if (wait > 0) await sleep(wait);
    }
    while (inFlight > 0) await sleep(10);
  })();
  return {
    samples,
    failures: () => failures,
    stop: async () => {
      stop = true;
      await loop;
    },
  };
}

const LISTED = /"id":\d+,"result":/g;
const LIMITED = /"id":\d+,"error":\{"code":-32000,"message":"RATE_LIMITED/g;

async function mcpFlood(base: string, key: string, customerId: string, agentId: string, durationMs: number) {
  const until = performance.now() + durationMs;
  const batch = JSON.stringify(Array.from({ length: BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })));
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `ServiceSecret ${key}`,
    'x-hub-customer-id': customerId,
    'x-hub-agent-id': agentId,
  };
  const tally = { requests: 0, messages: 0, limited: 0, listed: 0, bytes: 0 };
  await Promise.all(
    Array.from({ length: ATTACKERS }, async () => {
      for (let i = 0; performance.now() < until && i < 1_000_000; i++) {
        const res = await fetch(`${base}/mcp`, { method: 'POST', headers, body: batch });
        const text = await res.text();
        tally.requests++;
        tally.bytes += text.length;
        // Counted by the answers' own prefixes, not parsed: the attacker's CPU is the victim's machine too.
        tally.listed += text.match(LISTED)?.length ?? 0;
        tally.limited += text.match(LIMITED)?.length ?? 0;
        tally.messages += BATCH;
      }
    }),
  );
  return tally;
}

async function notFoundFlood(base: string, key: string, customerId: string, agentId: string) {
  // Bulky inputs: an unknown tool's inputs cannot be validated, so they are what a receipt could keep.
  const inputs = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`field_${i.toString().padStart(4, '0')}_${'x'.repeat(24)}`, i]));
  const statuses = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: ATTACKERS }, async () => {
      while (next < REFUSED_CALLS) {
        const i = next++;
        const res = await fetch(`${base}/api/internal/tools/execute/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `ServiceSecret ${key}` },
          body: JSON.stringify({ tool: `no_such_tool_${i}`, agent_id: agentId, customer_id: customerId, inputs, context: { request_id: `flood-${i}` } }),
        });
        await res.arrayBuffer();
        statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
      }
    }),
  );
  return Object.fromEntries(statuses);
}

type Job = { kind: 'mcp' | 'not-found'; base: string; key: string; customerId: string; agentId: string; durationMs: number };

/**
 * The attacker runs in a process of its own: parsing its flood's answers in the bench's process would delay the
 * victim's own timings, and the victim's latency must be the Hub's.
 */
function attack(job: Job): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['attacker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (result: Record<string, number>) => resolve(result));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the attacker exited with ${code}`))));
    child.send(job);
  });
}

function attacker(): void {
  process.once('message', (job: Job) => {
    const run =
      job.kind === 'mcp'
        ? mcpFlood(job.base, job.key, job.customerId, job.agentId, job.durationMs)
        : notFoundFlood(job.base, job.key, job.customerId, job.agentId);
    run.then(
      (result) => process.send!(result, () => process.exit(0)),
      (err: unknown) => {
        process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  });
}

/** Waits until the receipt writer has written the attacker's receipts (their count stops moving; the victim's never do). */
async function settledRows(db: Client, victimCustomer: string): Promise<number> {
  let last = -1;
  for (let i = 0; i < 60; i++) {
    const n = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_receipts WHERE customer_id IS DISTINCT FROM $1', [victimCustomer])).rows[0]!
      .n;
    if (n === last) return n;
    last = n;
    await sleep(1000);
  }
  return last;
}

const relationBytes = async (db: Client) => Number((await db.query<{ b: string }>(`SELECT pg_total_relation_size('audit_receipts')::bigint AS b`)).rows[0]!.b);

async function main() {
  const databaseUrl = env.BENCH_DATABASE_URL ?? env.DATABASE_URL;
  if (!databaseUrl) {
    process.stderr.write('bench:abuse needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server; the bench uses a schema of its own)\n');
    process.exit(1);
  }
  const schema = await ownSchema(databaseUrl, 'bench_abuse');
  const hub = await startHub({
    PATH: env.PATH,
    HUB_PUBLIC_URL: 'http://127.0.0.1',
    HUB_SERVICE_SECRETS: SECRET,
    HUB_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    DATABASE_URL: schema.url,
    HUB_PORT: '0',
    HUB_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    HUB_SHUTDOWN_GRACE_MS: '0',
    HUB_ADMIN_JWT_SECRET: ADMIN_JWT_SECRET,
    // Room for the victim's steady rate over the whole run; the attacker spends its own agent's and customer's.
    HUB_RATE_LIMIT_WINDOW_S: '60',
    HUB_RATE_LIMIT_CUSTOMER_POINTS: '3000',
    HUB_RATE_LIMIT_AGENT_POINTS: '1500',
  });
  const db = new Client({ connectionString: schema.url });
  await db.connect();
  try {
    const adminToken = jwt.sign({ role: 'hub_admin' }, ADMIN_JWT_SECRET, {
      algorithm: 'HS256',
      issuer: 'hub-admin',
      audience: 'hub-admin-api',
      expiresIn: 600,
    });
    const attackerCustomer = randomUUID();
    const attackerAgent = randomUUID();
    const made = await fetch(`${hub.base}/api/admin/service-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'attacker', customer_ids: [attackerCustomer], agent_id: attackerAgent, tools: ['hub_echo', 'calendar_get_availability'] }),
    });
    if (!made.ok) throw new Error(`making the key: ${made.status} ${await made.text()}`);
    const key = ((await made.json()) as { key: string }).key;

    let phase: Phase = 'quiet';
    const victimCustomer = randomUUID();
    const v = victim(hub.base, victimCustomer, () => phase);
    const rss0 = rssMb(hub.child.pid!);
    // The MCP flood in ROUNDS slices, each right after a quiet slice of the same length: a shared machine drifts
    // within a minute, and the victim's quiet and attacked samples should meet the same machine.
    const slice = (PHASE_S * 1000) / ROUNDS;
    const who = { base: hub.base, key, customerId: attackerCustomer, agentId: attackerAgent, durationMs: slice };
    const mcp = { requests: 0, messages: 0, limited: 0, listed: 0, bytes: 0 };
    let quietCpu = 0;
    let mcpCpu = 0;
    for (let round = 0; round < ROUNDS; round++) {
      phase = 'quiet';
      const q0 = cpuMs(hub.child.pid!);
      await sleep(slice);
      quietCpu += cpuMs(hub.child.pid!) - q0;
      phase = 'mcp-flood';
      const c0 = cpuMs(hub.child.pid!);
      const tally = (await attack({ kind: 'mcp', ...who })) as Awaited<ReturnType<typeof mcpFlood>>;
      mcpCpu += cpuMs(hub.child.pid!) - c0;
      for (const k of Object.keys(mcp) as (keyof typeof mcp)[]) mcp[k] += tally[k];
    }
    const quietCpuShare = quietCpu / (PHASE_S * 1000);
    const rssMcp = rssMb(hub.child.pid!);
    phase = 'quiet';
    await sleep(slice);

    const rowsBefore = await settledRows(db, victimCustomer);
    const bytesBefore = await relationBytes(db);
    const maxId = Number((await db.query<{ m: string | null }>('SELECT max(id) AS m FROM audit_receipts')).rows[0]!.m ?? 0);
    phase = 'not-found-flood';
    const t0 = performance.now();
    const cpu1 = cpuMs(hub.child.pid!);
    const statuses = await attack({ kind: 'not-found', ...who });
    const notFoundCpu = cpuMs(hub.child.pid!) - cpu1;
    const floodS = (performance.now() - t0) / 1000;
    const rssFlood = rssMb(hub.child.pid!);
    phase = 'quiet';
    await sleep(PHASE_S * 1000);
    await v.stop();
    const rowsAfter = await settledRows(db, victimCustomer);
    const bytesAfter = await relationBytes(db);
    // Every row the flood phase wrote that is not the victim's: the refused calls' receipts, wherever recorded.
    const attacker = (
      await db.query<{ n: number; b: string | null }>(
        'SELECT count(*)::int AS n, sum(pg_column_size(r.*))::bigint AS b FROM audit_receipts r WHERE id > $1 AND customer_id IS DISTINCT FROM $2',
        [maxId, victimCustomer],
      )
    ).rows[0]!;
    const attackerBytes = Number(attacker.b ?? 0);
    const victims = (
      await db.query<{ b: string | null }>('SELECT sum(pg_column_size(r.*))::bigint AS b FROM audit_receipts r WHERE id > $1 AND customer_id = $2', [
        maxId,
        victimCustomer,
      ])
    ).rows[0]!;
    const victimBytes = Number(victims.b ?? 0);

    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99) };
    };
    const quiet = stats(v.samples.quiet);
    const underMcp = stats(v.samples['mcp-flood']);
    const underNotFound = stats(v.samples['not-found-flood']);
    const line = (name: string, s: ReturnType<typeof stats>) =>
      `  ${name.padEnd(26)} p50 ${s.p50.toFixed(1).padStart(7)} ms  p99 ${s.p99.toFixed(1).padStart(7)} ms  (${s.n} calls)  p50 ÷ quiet ${(s.p50 / quiet.p50).toFixed(2)}\n`;
    const refused429 = statuses['429'] ?? 0;
    const growth = bytesAfter - bytesBefore;
    // The table's growth in proportion to the bytes of the rows each side wrote (the victim's calls go on meanwhile).
    const attributed = attackerBytes + victimBytes > 0 ? (growth * attackerBytes) / (attackerBytes + victimBytes) : growth;
    const out = process.stdout;
    out.write(`victim hub_echo at ${VICTIM_RPS}/s (${v.failures()} failed), attacker: one key scoped to one customer, ${ATTACKERS} connections\n`);
    out.write(line('quiet', quiet));
    out.write(line('under MCP batch flood', underMcp));
    out.write(line('under TOOL_NOT_FOUND flood', underNotFound));
    out.write(
      `MCP flood: ${mcp.requests} requests of ${BATCH} tools/list, ${mcp.messages} messages: ${mcp.listed} listed, ${mcp.limited} refused RATE_LIMITED ` +
        `(429 share ${((100 * mcp.limited) / Math.max(1, mcp.messages)).toFixed(1)}%), ${(mcp.bytes / 1e6).toFixed(1)} MB answered, ` +
        `Hub CPU ${((100 * mcpCpu) / (PHASE_S * 1000)).toFixed(0)}% of a core (quiet: ${(100 * quietCpuShare).toFixed(0)}%)\n`,
    );
    out.write(
      `TOOL_NOT_FOUND flood: ${REFUSED_CALLS} calls in ${floodS.toFixed(1)} s, statuses ${JSON.stringify(statuses)}, Hub CPU ${((100 * notFoundCpu) / (floodS * 1000)).toFixed(0)}% of a core ` +
        `(429 share ${((100 * refused429) / REFUSED_CALLS).toFixed(1)}%)\n`,
    );
    out.write(
      `audit_receipts over the flood phase: pg_total_relation_size +${(growth / 1e6).toFixed(2)} MB (the victim's receipts included); ` +
        `the ${attacker.n} rows that are not the victim's (${rowsAfter - rowsBefore} by count) hold ${(attackerBytes / 1e6).toFixed(2)} MB ` +
        `(${attacker.n > 0 ? (attackerBytes / attacker.n).toFixed(0) : '0'} B a row, pg_column_size), ` +
        `the victim's ${(victimBytes / 1e6).toFixed(2)} MB: growth attributable to the refused calls ${(attributed / 1e6).toFixed(2)} MB\n`,
    );
    out.write(`Hub RSS: ${rss0.toFixed(0)} MB quiet, ${rssMcp.toFixed(0)} MB after the MCP flood, ${rssFlood.toFixed(0)} MB after the TOOL_NOT_FOUND flood\n`);
    const mcpOk = underMcp.p50 <= 2 * quiet.p50;
    const notFoundOk = underNotFound.p50 <= 2 * quiet.p50;
    const growthOk = attributed <= 2 * 1024 * 1024;
    const verdict = (okay: boolean) => (okay ? 'met' : 'NOT met');
    out.write(
      `targets: victim p50 <= 2 x quiet under the MCP flood: ${verdict(mcpOk)}, under the TOOL_NOT_FOUND flood: ${verdict(notFoundOk)}; ` +
        `audit growth <= 2 MB for ${REFUSED_CALLS} refused calls: ${verdict(growthOk)}\n`,
    );
    process.exitCode = mcpOk && notFoundOk && growthOk ? 0 : 1;
  } finally {
    await db.end();
    hub.child.kill('SIGTERM');
    await new Promise((r) => hub.child.once('exit', r));
    await schema.drop();
  }
}

if (process.argv[2] === 'attacker') attacker();
else
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
