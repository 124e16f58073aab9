import { type ChildProcess, fork } from 'node:child_process';
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createRedactor } from '../src/audit/redact';
import { receiptThreadEntry, threadedReceiptWriter } from '../src/audit/receipt-writer';
import type { CallRecord } from '../src/audit/receipts';
import { createMetrics } from '../src/observability/metrics';
import type { Db } from '../src/store/db';
import { tracingOff } from '../src/observability/tracing';
import { ownSchema } from './pg-schema';
import jwt from 'jsonwebtoken';

/**
 * `npm run bench`: what the Hub's own middleware costs on top of the framework.
 * Starts the Hub (embedded PGlite, info-level JSON access logs to /dev/null, as in production), a minimal Express 5
 * app and a bare node:http server, each in its own process; hits each with the same hub_echo request at 50
 * connections. Machines like ours drift by ±30% within a minute, so measurements are short and interleaved
 * (rotating order), each round yields its own ratios, and the median of the per-round ratios is reported —
 * together with each server's CPU time per request (from /proc), which drifts far less than throughput.
 * Target: hub/express >= 0.7.
 *
 * Two more Hubs measure protection: `hub-429` has a limit of one call per minute, so every measured request is
 * the rate-limit rejection path (429 before any credential lookup) — compared with the bare Express baseline; and,
 * when REDIS_URL is set, `hub-redis` shares its limits through Redis — its p50/p99 against the in-memory hub's
 * is the latency the Redis limiter adds (one Redis round trip per call: a Lua script charges every limit).
 *
 * `hub-unrecorded` is the same Hub with HUB_METRICS=off and HUB_AUDIT=off: hub/hub-unrecorded is what recording
 * the Prometheus metrics and writing the audit receipt (redacted payloads, the default) cost on the echo path
 * (tracing SDK off in both, as by default). Target >= 0.90, printed as a throughput ratio and as a ratio of Hub
 * CPU per request (the steadier of the two on a shared machine).
 *
 * Per call it also splits the CPU: the Hub's main thread (its event loop: one process serves at most 1/main calls a
 * second), its other threads (the receipt writer, GC helpers), the PostgreSQL server when it runs on this machine,
 * and the load generator (this process) — and prints the hub/hub-unrecorded those costs predict on this machine's
 * cores, min(1/main, cores/total) of each, so a ratio below target says whether the Hub's own thread or the
 * machine's cores bound it.
 *
 * Storage: embedded PGlite by default, whose receipt inserts run inside the Hub's own process; with
 * BENCH_DATABASE_URL set, every Hub uses that PostgreSQL server (how a deployed Hub runs), so the database's work
 * is not billed to the Hub.
 *
 * Two more measure access control on the very same `hub` process (same JIT state, measured in the same rounds):
 * `hub-key` authenticates with a scoped service key (made through the admin API, tool allow-list included)
 * instead of a HUB_SERVICE_SECRETS secret, and `hub-policy` calls for a customer with a customer policy and an
 * agent policy set (every rule, a conversation budget counted on each call). Targets: each >= 0.95 x `hub`.
 *
 * `hub-unaudited` is the same Hub with HUB_AUDIT=off only (metrics on): the request thread's CPU per call of `hub`
 * minus its own is what an audited call costs the event loop — reading the call's facts and handing them over in
 * batches; the call_id's HMAC, the redaction and the insert run on the receipt thread. Target: <= 15 us a call, and
 * unaudited/audited by request-thread CPU >= 0.85 (with BENCH_DATABASE_URL).
 *
 * Knobs: BENCH_SECONDS (per measurement, default 4), BENCH_ROUNDS (default 7), BENCH_CONNECTIONS (default 50),
 * BENCH_DATABASE_URL (a PostgreSQL server for every Hub; default embedded PGlite), BENCH_ONLY=audit (only `hub` and
 * `hub-unaudited`: the audit's cost on the request thread, quicker on a busy machine).
 */

const env = process.env; // bench entry point: reads its own knobs, hands the Hub a complete environment
const SECONDS = Number(env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 7);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const SECRET = randomBytes(32).toString('hex');
const AUDIT_ONLY = env.BENCH_ONLY === 'audit';

type Name = 'hub' | 'express' | 'bare' | 'hub-429' | 'hub-redis' | 'hub-unrecorded' | 'hub-unaudited' | 'hub-key' | 'hub-policy';

interface Target {
  name: Name;
  child: ChildProcess;
  port: number;
  /** Another way of calling the same process (`hub-key`, `hub-policy`): its own credential or body. */
  authorization?: string;
  body?: string;
}

function start(name: Name, script: string, childEnv: NodeJS.ProcessEnv): Promise<Target> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'baselines', script), ['0'], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (m: { port: number }) => resolve({ name, child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

const ADMIN_JWT_SECRET = randomBytes(32).toString('hex');
const echoBody = (customerId: string, agentId: string) =>
  JSON.stringify({
    tool: 'hub_echo',
    agent_id: agentId,
    customer_id: customerId,
    user_id: null,
    inputs: { message: 'Meeting with John at 14:00 — please confirm.' },
    context: { conversation_id: 'bench', request_id: 'bench-1' },
  });
const body = echoBody(randomUUID(), randomUUID());

/** Makes the service key and the two policies `hub-key` and `hub-policy` use, through the admin API. */
async function setUpAccess(hub: Target): Promise<{ key: string; policyBody: string }> {
  const admin = `Bearer ${jwt.sign({ role: 'hub_admin' }, ADMIN_JWT_SECRET, { algorithm: 'HS256', issuer: 'hub-admin', audience: 'hub-admin-api', expiresIn: 600 })}`;
  const call = async (method: string, path: string, payload: unknown) => {
    const res = await fetch(`http://127.0.0.1:${hub.port}${path}`, {
      method,
      headers: { authorization: admin, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const made = await call('POST', '/api/admin/service-keys', {
    name: 'bench',
    customer_ids: 'all',
    tools: ['hub_echo@1', 'email_search', 'calendar_get_availability'],
  });
  const customerId = randomUUID();
  const agentId = randomUUID();
  await call('PUT', `/api/admin/customers/${customerId}/policy`, {
    enabled_tools: ['hub_echo', 'email_search', 'email_read', 'email_send@1', 'calendar_get_availability'],
    max_tool_calls_per_conversation: 1_000_000, // counted on every call, never reached here
    email_allowed_recipient_domains: ['acme.example'],
    require_request_id_for_writes: true,
  });
  await call('PUT', `/api/admin/customers/${customerId}/agents/${agentId}/policy`, { max_side_effects: 'reads' });
  return { key: made.key as string, policyBody: echoBody(customerId, agentId) };
}

/** CPU time (user + system) from a /proc stat file, in microseconds; Linux only. */
function cpuOfStat(path: string): number {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100); // clock ticks at USER_HZ = 100
  } catch {
    return Number.NaN;
  }
}
/** All threads of the process. */
const cpuMicros = (pid: number) => cpuOfStat(`/proc/${pid}/stat`);
/** The main thread alone (its task id is the pid): the event loop, which bounds one process's throughput. */
const mainThreadMicros = (pid: number) => cpuOfStat(`/proc/${pid}/task/${pid}/stat`);
/** Every PostgreSQL server process on this machine (the bench's database when it is local); 0 without one. */
function databaseMicros(): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') sum += cpuOfStat(`/proc/${entry}/stat`);
    } catch {
      // the process ended meanwhile
    }
  }
  return sum;
}

async function hit(target: Target, seconds: number) {
  const pid = target.child.pid!;
  const cpu0 = cpuMicros(pid);
  const main0 = mainThreadMicros(pid);
  const db0 = databaseMicros();
  const client0 = process.cpuUsage();
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}/api/internal/tools/execute/`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: target.authorization ?? `ServiceSecret ${SECRET}` },
    body: target.body ?? body,
  });
  // hub-429 allows one call per minute: at most one success per measurement, everything else is the 429 path.
  const expected = target.name === 'hub-429' ? result['2xx'] <= 1 : result.non2xx === 0;
  if (!expected || result.errors > 0) throw new Error(`${target.name}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors`);
  const n = result.requests.total;
  const client = process.cpuUsage(client0);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu: (cpuMicros(pid) - cpu0) / n,
    main: (mainThreadMicros(pid) - main0) / n,
    db: (databaseMicros() - db0) / n,
    client: (client.user + client.system) / n,
  };
}

/** One request at a time (no queueing), so the percentiles are the per-request cost in microseconds. */
async function sequentialLatency(target: Target, requests: number): Promise<{ p50: number; p99: number }> {
  const url = `http://127.0.0.1:${target.port}/api/internal/tools/execute/`;
  const headers = { 'content-type': 'application/json', authorization: `ServiceSecret ${SECRET}` };
  const us: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body });
    await res.arrayBuffer();
    us.push((performance.now() - t0) * 1000);
  }
  us.sort((a, b) => a - b);
  return { p50: us[Math.floor(us.length * 0.5)]!, p99: us[Math.floor(us.length * 0.99)]! };
}

/**
 * The three ways of calling the same Hub process, one request at a time, taking turns request by request — so
 * all three meet the same machine at the same moment, which a shared, loaded machine never offers two separate
 * measurements. Returns each one's median latency in microseconds.
 */
async function interleavedLatency(variants: Target[], perVariant: number): Promise<number[]> {
  const samples = variants.map(() => [] as number[]);
  for (let i = 0; i < perVariant; i++) {
    for (let v = 0; v < variants.length; v++) {
      const k = (v + i) % variants.length; // rotate who goes first
      const target = variants[k]!;
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${target.port}/api/internal/tools/execute/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: target.authorization ?? `ServiceSecret ${SECRET}` },
        body: target.body ?? body,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${target.name}: ${res.status}`);
      samples[k]!.push((performance.now() - t0) * 1000);
    }
  }
  return samples.map((xs) => median(xs));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * What recording one echo call's metrics costs in this process (ns per call, median of 5 runs of 200k calls) —
 * the part of hub vs hub-unrecorded that throughput on a loaded machine cannot resolve — and tracing off's cost
 * (reading a traceparent, no span).
 */
function inProcessCosts(): { metricsNs: number; tracingOffNs: number } {
  const metrics = createMetrics({ knownTools: ['hub_echo'], defaultMetrics: false });
  const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
  const per = (fn: () => void) => {
    const runs: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 200_000; i++) fn();
      runs.push(Number(process.hrtime.bigint() - t0) / 200_000);
    }
    return median(runs);
  };
  let sink = 0;
  return {
    metricsNs: per(() => metrics.toolCall('hub_echo', 'ok', 0.0003)),
    tracingOffNs:
      per(() => {
        sink += tracingOff.startCall(headers).traceId!.length;
      }) +
      sink * 0,
  };
}

/**
 * What the audit costs the request thread itself, in this process: an echo call's receipt facts read and handed
 * to a receipt thread in batches (`recordCall`'s whole share; the structured clone of each batch included), in µs
 * per call — the median of 7 runs of 20,000 calls. The thread's database is unreachable on purpose: only the
 * request thread's side is timed, by its own CPU time, so a loaded machine shows in it far less than in /proc's figures.
 */
async function auditHandOffUs(): Promise<number> {
  const secret = randomBytes(32);
  const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Parameters<typeof threadedReceiptWriter>[0]['logger'];
  const writer = threadedReceiptWriter({
    db: {} as Db,
    logger: quiet,
    mode: 'redacted',
    redact: createRedactor('redacted', secret),
    key: createSecretKey(secret),
    maxQueued: 1e9,
    batchSize: 200,
    flushIntervalMs: 60_000,
    retryForMs: 1_000,
    database: { url: 'postgres://127.0.0.1:9/unreachable', poolMax: 1 },
    secret,
    entry: receiptThreadEntry()!,
  });
  const parsed = JSON.parse(body) as { customer_id: string; agent_id: string; inputs: { message: string } };
  const caller = { customerId: parsed.customer_id, agentId: parsed.agent_id, userId: null, conversationId: 'bench' };
  const record = (): CallRecord => ({
    body: parsed,
    execution: { ok: true, tool: 'hub_echo', value: { message: parsed.inputs.message }, requestId: 'bench-1', apiCalls: 0, caller },
    version: '1.0.0',
    startedAt: Date.now(),
    endedAt: Date.now(),
    durationMs: 0.3,
    ops: [],
    opsOmitted: 0,
    traceId: null,
    principal: { kind: 'secret', fingerprint: '0123456789ab' },
  });
  // This thread's own CPU time (process.threadCpuUsage, Node >= 23.9): what the request thread pays, not the time
  // it waited for a core on a loaded machine.
  const cpu = () => {
    const u = process.threadCpuUsage();
    return u.user + u.system;
  };
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) {
    let busy = 0;
    for (let i = 0; i < 20_000; i += 128) {
      const t0 = cpu();
      for (let k = 0; k < 128; k++) writer.push(record()); // the 128th hands the batch over
      busy += cpu() - t0;
      await new Promise((resolve) => setImmediate(resolve)); // the loop turns between batches, as it does under load
    }
    runs.push(busy / (Math.ceil(20_000 / 128) * 128));
  }
  await writer.close(100);
  return median(runs);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-bench-'));
  // A schema of the run's own: on tables a previous run left, the Hubs could not unseal its audit key.
  const schema = env.BENCH_DATABASE_URL ? await ownSchema(env.BENCH_DATABASE_URL, 'bench_echo') : undefined;
  const hubEnv = {
    PATH: env.PATH,
    HUB_PUBLIC_URL: 'http://127.0.0.1',
    HUB_SERVICE_SECRETS: SECRET,
    HUB_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    HUB_DATA_DIR: dataDir,
    ...(schema ? { DATABASE_URL: schema.url } : {}),
    HUB_PORT: '0',
    HUB_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    HUB_SHUTDOWN_GRACE_MS: '0', // no load balancer to drain: stop at once when the bench ends
    HUB_ADMIN_JWT_SECRET: ADMIN_JWT_SECRET, // the admin API makes the service key and policies of hub-key / hub-policy
    // The measured hubs must never limit: one customer sends everything.
    HUB_RATE_LIMIT_CUSTOMER_POINTS: '10000000',
    HUB_RATE_LIMIT_AGENT_POINTS: '10000000',
  };
  const targets: Target[] = [];
  const launch = async (name: Name, script: string, childEnv: NodeJS.ProcessEnv) => targets.push(await start(name, script, childEnv));
  try {
    await launch('hub', 'hub.js', hubEnv);
    await launch('hub-unaudited', 'hub.js', { ...hubEnv, HUB_DATA_DIR: `${dataDir}-unaudited`, HUB_AUDIT: 'off' });
    if (AUDIT_ONLY) return await auditOnly(targets, schema !== undefined).finally(() => stopAll(targets, dataDir, schema));
    await launch('hub-unrecorded', 'hub.js', { ...hubEnv, HUB_DATA_DIR: `${dataDir}-unrecorded`, HUB_METRICS: 'off', HUB_AUDIT: 'off' });
    await launch('express', 'express-app.js', { PATH: env.PATH });
    await launch('bare', 'bare-http.js', { PATH: env.PATH });
    await launch('hub-429', 'hub.js', { ...hubEnv, HUB_DATA_DIR: `${dataDir}-429`, HUB_RATE_LIMIT_CUSTOMER_POINTS: '1', HUB_RATE_LIMIT_AGENT_POINTS: '1' });
    if (env.REDIS_URL) await launch('hub-redis', 'hub.js', { ...hubEnv, HUB_DATA_DIR: `${dataDir}-redis`, REDIS_URL: env.REDIS_URL });
    const hub = targets[0]!;
    const { key, policyBody } = await setUpAccess(hub);
    targets.push({ ...hub, name: 'hub-key', authorization: `ServiceSecret ${key}` }, { ...hub, name: 'hub-policy', body: policyBody });
  } catch (err) {
    for (const t of targets) t.child.kill('SIGTERM'); // never leave a started server behind
    throw err;
  }
  try {
    console.log(`node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${SECONDS}s per target`);
    for (const t of targets) await hit(t, 3); // warm-up: JIT, pools, PGlite
    type Run = Awaited<ReturnType<typeof hit>>;
    const runs: Record<Name, Run[]> = {
      hub: [],
      express: [],
      bare: [],
      'hub-429': [],
      'hub-redis': [],
      'hub-unrecorded': [],
      'hub-unaudited': [],
      'hub-key': [],
      'hub-policy': [],
    };
    const ratios: { express: number[]; bare: number[]; metrics: number[]; key: number[]; policy: number[] } = {
      express: [],
      bare: [],
      metrics: [],
      key: [],
      policy: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!); // rotate who goes first
      const got = {} as Record<Name, Run>;
      for (const t of order) got[t.name] = await hit(t, SECONDS);
      for (const t of targets) runs[t.name].push(got[t.name]);
      ratios.express.push(got.hub.rps / got.express.rps);
      ratios.bare.push(got.hub.rps / got.bare.rps);
      ratios.metrics.push(got.hub.rps / got['hub-unrecorded'].rps);
      ratios.key.push(got['hub-key'].rps / got.hub.rps);
      ratios.policy.push(got['hub-policy'].rps / got.hub.rps);
      console.log(
        `  round ${round + 1}: ` +
          targets.map((t) => `${t.name} ${got[t.name].rps.toFixed(0)} req/s (${got[t.name].cpu.toFixed(1)} us cpu/req)`).join(', ') +
          `  hub/express ${(got.hub.rps / got.express.rps).toFixed(2)}, metrics+audit on/off ${(got.hub.rps / got['hub-unrecorded'].rps).toFixed(2)}`,
      );
    }
    const med = (name: Name, key: keyof Run) => median(runs[name].map((r) => r[key]));
    console.log('\nmedians over rounds');
    for (const t of targets) {
      console.log(`  ${t.name.padEnd(13)} ${med(t.name, 'rps').toFixed(0).padStart(6)} req/s  ${med(t.name, 'cpu').toFixed(1)} us cpu/req`);
    }
    console.log(`hub/express = ${median(ratios.express).toFixed(2)}  (median of per-round ratios; target >= 0.70)`);
    console.log(`hub/bare    = ${median(ratios.bare).toFixed(2)}`);
    console.log(
      `metrics + audit on/off (${env.BENCH_DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite, in the Hub process'}): hub/hub-unrecorded = ${median(ratios.metrics).toFixed(2)} ` +
        `(median of per-round ratios; target >= 0.90); cpu per request ${med('hub', 'cpu').toFixed(1)} us vs ${med('hub-unrecorded', 'cpu').toFixed(1)} us ` +
        `(cpu ratio unrecorded/hub = ${(med('hub-unrecorded', 'cpu') / med('hub', 'cpu')).toFixed(2)})`,
    );
    // Where the CPU of a recorded call goes, and the hub/hub-unrecorded these costs predict on this machine: a Hub
    // serves at most 1/main calls per second (one event loop), and the machine at most cores/total (the Hub's
    // threads, the database server and the load generator share its cores).
    const split = (n: Name) => ({ main: med(n, 'main'), other: med(n, 'cpu') - med(n, 'main'), db: med(n, 'db'), client: med(n, 'client') });
    const cores = availableParallelism();
    const capacity = (c: ReturnType<typeof split>) => Math.min(1e6 / c.main, (cores * 1e6) / (c.main + c.other + c.db + c.client));
    const on = split('hub');
    const off = split('hub-unrecorded');
    printAuditCost(med('hub', 'main'), med('hub-unaudited', 'main'), env.BENCH_DATABASE_URL !== undefined);
    console.log(`audit facts + batched hand-off on the request thread, in process: ${(await auditHandOffUs()).toFixed(2)} us per call (target <= 15)`);
    const show = (c: ReturnType<typeof split>) =>
      `main thread ${c.main.toFixed(1)}, other Hub threads ${c.other.toFixed(1)}, database server ${c.db.toFixed(1)}, load generator ${c.client.toFixed(1)}`;
    console.log(`cpu per call (us), hub:            ${show(on)}`);
    console.log(`cpu per call (us), hub-unrecorded: ${show(off)}`);
    console.log(
      `hub/hub-unrecorded these CPU costs predict on ${cores} cores = ${(capacity(on) / capacity(off)).toFixed(2)} ` +
        `(each: min(1/main thread, cores/total); the database server counts only when it runs on this machine)`,
    );
    console.log(`cpu per request, express/hub = ${(med('express', 'cpu') / med('hub', 'cpu')).toFixed(2)}`);
    console.log(`hub latency p50 = ${med('hub', 'p50')} ms, p99 = ${med('hub', 'p99')} ms`);
    const cost = inProcessCosts();
    console.log(
      `metrics recording per echo call, in process: ${cost.metricsNs.toFixed(0)} ns (${((cost.metricsNs / 1000 / med('hub-unrecorded', 'cpu')) * 100).toFixed(2)}% of hub-unrecorded's CPU per request); ` +
        `tracing off, traceparent read: ${cost.tracingOffNs.toFixed(0)} ns`,
    );
    console.log(
      `service key vs HUB_SERVICE_SECRETS: hub-key/hub = ${median(ratios.key).toFixed(2)} (median of per-round ratios; target >= 0.95), ` +
        `cpu/req ${med('hub-key', 'cpu').toFixed(1)} vs ${med('hub', 'cpu').toFixed(1)} us`,
    );
    console.log(
      `customer + agent policy vs none: hub-policy/hub = ${median(ratios.policy).toFixed(2)} (target >= 0.95), ` +
        `cpu/req ${med('hub-policy', 'cpu').toFixed(1)} vs ${med('hub', 'cpu').toFixed(1)} us`,
    );
    const trio = ['hub', 'hub-key', 'hub-policy'].map((n) => targets.find((t) => t.name === n)!);
    const blocks: number[][] = [];
    for (let i = 0; i < 5; i++) blocks.push(await interleavedLatency(trio, 600));
    const p50 = (k: number) => median(blocks.map((b) => b[k]!));
    const ratio = (k: number) => median(blocks.map((b) => b[0]! / b[k]!)); // latency of hub / latency of variant = throughput ratio
    console.log(
      `interleaved, one request at a time (5 blocks x 600 each): p50 hub ${p50(0).toFixed(0)} us, hub-key ${p50(1).toFixed(0)} us, hub-policy ${p50(2).toFixed(0)} us; ` +
        `hub-key/hub = ${ratio(1).toFixed(3)}, hub-policy/hub = ${ratio(2).toFixed(3)} (median of per-block ratios; target >= 0.95)`,
    );
    const rejectRatios = runs['hub-429'].map((r, i) => r.rps / runs.express[i]!.rps);
    console.log(`rate-limit rejection path (429): ${med('hub-429', 'rps').toFixed(0)} req/s, hub-429/express = ${median(rejectRatios).toFixed(2)}`);
    if (runs['hub-redis'].length) {
      const hub = targets.find((t) => t.name === 'hub')!;
      const redis = targets.find((t) => t.name === 'hub-redis')!;
      const mem: { p50: number; p99: number }[] = [];
      const red: { p50: number; p99: number }[] = [];
      for (let i = 0; i < 3; i++) {
        mem.push(await sequentialLatency(hub, 1500));
        red.push(await sequentialLatency(redis, 1500));
      }
      const m = (xs: { p50: number; p99: number }[], k: 'p50' | 'p99') => median(xs.map((x) => x[k]));
      console.log(
        `Redis limiter, one request at a time (3 x 1500): p50 ${m(red, 'p50').toFixed(0)} us vs ${m(mem, 'p50').toFixed(0)} us in memory ` +
          `(+${(m(red, 'p50') - m(mem, 'p50')).toFixed(0)} us), p99 ${m(red, 'p99').toFixed(0)} us vs ${m(mem, 'p99').toFixed(0)} us (+${(m(red, 'p99') - m(mem, 'p99')).toFixed(0)} us)`,
      );
      console.log(
        `Redis limiter at 50 connections (saturated): p50 ${med('hub-redis', 'p50')} ms vs ${med('hub', 'p50')} ms in memory (+${(med('hub-redis', 'p50') - med('hub', 'p50')).toFixed(2)}), ` +
          `p99 ${med('hub-redis', 'p99')} ms vs ${med('hub', 'p99')} ms (+${(med('hub-redis', 'p99') - med('hub', 'p99')).toFixed(2)}); ` +
          `hub-redis/hub = ${(med('hub-redis', 'rps') / med('hub', 'rps')).toFixed(2)}`,
      );
    }
  } finally {
    await stopAll(targets, dataDir, schema);
  }
}

async function stopAll(targets: Target[], dataDir: string, schema: { drop(): Promise<void> } | undefined) {
  for (const t of targets) t.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  for (const dir of [dataDir, `${dataDir}-429`, `${dataDir}-redis`, `${dataDir}-unrecorded`, `${dataDir}-unaudited`])
    rmSync(dir, { recursive: true, force: true });
  await schema?.drop();
}

/** What an audited call costs the request thread (the Hub's main thread, from /proc), and the ratio it bounds. */
function printAuditCost(audited: number, unaudited: number, server: boolean) {
  console.log(
    `request thread cpu per call (${server ? 'PostgreSQL server' : 'embedded PGlite'}): audited ${audited.toFixed(1)} us, unaudited ${unaudited.toFixed(1)} us; ` +
      `audit's extra ${(audited - unaudited).toFixed(1)} us (target <= 15); unaudited/audited = ${(unaudited / audited).toFixed(2)} (target >= 0.85)`,
  );
}

/** BENCH_ONLY=audit: `hub` and `hub-unaudited` alone, interleaved rounds, the request thread's CPU per call. */
async function auditOnly(targets: Target[], server: boolean) {
  const [hub, unaudited] = targets as [Target, Target];
  console.log(`node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${SECONDS}s per target (audit's cost only)`);
  for (const t of targets) await hit(t, 3);
  const main: Record<'hub' | 'unaudited', number[]> = { hub: [], unaudited: [] };
  const extra: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [unaudited, hub] : [hub, unaudited];
    const got = new Map<Target, Awaited<ReturnType<typeof hit>>>();
    for (const t of order) got.set(t, await hit(t, SECONDS));
    const [a, u] = [got.get(hub)!, got.get(unaudited)!];
    main.hub.push(a.main);
    main.unaudited.push(u.main);
    extra.push(a.main - u.main);
    console.log(
      `  round ${round + 1}: request thread ${a.main.toFixed(1)} vs ${u.main.toFixed(1)} us/call (extra ${(a.main - u.main).toFixed(1)}), ` +
        `${a.rps.toFixed(0)} vs ${u.rps.toFixed(0)} req/s`,
    );
  }
  printAuditCost(median(main.hub), median(main.unaudited), server);
  console.log(`median of per-round extras: ${median(extra).toFixed(1)} us`);
  console.log(`audit facts + batched hand-off on the request thread, in process: ${(await auditHandOffUs()).toFixed(2)} us per call (target <= 15)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
