import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

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
 * Knobs: BENCH_SECONDS (per measurement, default 4), BENCH_ROUNDS (default 7), BENCH_CONNECTIONS (default 50).
 */

const env = process.env; // bench entry point: reads its own knobs, hands the Hub a complete environment
const SECONDS = Number(env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 7);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const SECRET = randomBytes(32).toString('hex');

type Name = 'hub' | 'express' | 'bare' | 'hub-429' | 'hub-redis';

interface Target {
  name: Name;
  child: ChildProcess;
  port: number;
}

function start(name: Name, script: string, childEnv: NodeJS.ProcessEnv): Promise<Target> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'baselines', script), ['0'], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (m: { port: number }) => resolve({ name, child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

const body = JSON.stringify({
  tool: 'hub_echo',
  agent_id: randomUUID(),
  customer_id: randomUUID(),
  user_id: null,
  inputs: { message: 'Meeting with John at 14:00 — please confirm.' },
  context: { conversation_id: 'bench', request_id: 'bench-1' },
});

/** CPU time (user + system, all threads) the process has used, in microseconds; Linux only. */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100); // clock ticks at USER_HZ = 100
  } catch {
    return Number.NaN;
  }
}

async function hit(target: Target, seconds: number) {
  const cpu0 = cpuMicros(target.child.pid!);
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}/api/internal/tools/execute/`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `ServiceSecret ${SECRET}` },
    body,
  });
  // hub-429 allows one call per minute: at most one success per measurement, everything else is the 429 path.
  const expected = target.name === 'hub-429' ? result['2xx'] <= 1 : result.non2xx === 0;
  if (!expected || result.errors > 0) throw new Error(`${target.name}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuPerRequest = (cpuMicros(target.child.pid!) - cpu0) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu: cpuPerRequest };
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-bench-'));
  const hubEnv = {
    PATH: env.PATH,
    HUB_PUBLIC_URL: 'http://127.0.0.1',
    HUB_SERVICE_SECRETS: SECRET,
    HUB_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    HUB_DATA_DIR: dataDir,
    HUB_PORT: '0',
    HUB_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    HUB_SHUTDOWN_GRACE_MS: '0', // no load balancer to drain: stop at once when the bench ends
    // The measured hubs must never limit: one customer sends everything.
    HUB_RATE_LIMIT_CUSTOMER_POINTS: '10000000',
    HUB_RATE_LIMIT_AGENT_POINTS: '10000000',
  };
  const targets: Target[] = [];
  const launch = async (name: Name, script: string, childEnv: NodeJS.ProcessEnv) => targets.push(await start(name, script, childEnv));
  try {
    await launch('hub', 'hub.js', hubEnv);
    await launch('express', 'express-app.js', { PATH: env.PATH });
    await launch('bare', 'bare-http.js', { PATH: env.PATH });
    await launch('hub-429', 'hub.js', { ...hubEnv, HUB_DATA_DIR: `${dataDir}-429`, HUB_RATE_LIMIT_CUSTOMER_POINTS: '1', HUB_RATE_LIMIT_AGENT_POINTS: '1' });
    if (env.REDIS_URL) await launch('hub-redis', 'hub.js', { ...hubEnv, HUB_DATA_DIR: `${dataDir}-redis`, REDIS_URL: env.REDIS_URL });
  } catch (err) {
    for (const t of targets) t.child.kill('SIGTERM'); // never leave a started server behind
    throw err;
  }
  try {
    console.log(`node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${SECONDS}s per target`);
    for (const t of targets) await hit(t, 3); // warm-up: JIT, pools, PGlite
    type Run = Awaited<ReturnType<typeof hit>>;
    const runs: Record<Name, Run[]> = { hub: [], express: [], bare: [], 'hub-429': [], 'hub-redis': [] };
    const ratios: { express: number[]; bare: number[] } = { express: [], bare: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!); // rotate who goes first
      const got = {} as Record<Name, Run>;
      for (const t of order) got[t.name] = await hit(t, SECONDS);
      for (const t of targets) runs[t.name].push(got[t.name]);
      ratios.express.push(got.hub.rps / got.express.rps);
      ratios.bare.push(got.hub.rps / got.bare.rps);
      console.log(
        `  round ${round + 1}: ` +
          targets.map((t) => `${t.name} ${got[t.name].rps.toFixed(0)} req/s (${got[t.name].cpu.toFixed(1)} us cpu/req)`).join(', ') +
          `  hub/express ${(got.hub.rps / got.express.rps).toFixed(2)}`,
      );
    }
    const med = (name: Name, key: keyof Run) => median(runs[name].map((r) => r[key]));
    console.log('\nmedians over rounds');
    for (const t of targets) {
      console.log(`  ${t.name.padEnd(7)} ${med(t.name, 'rps').toFixed(0).padStart(6)} req/s  ${med(t.name, 'cpu').toFixed(1)} us cpu/req`);
    }
    console.log(`hub/express = ${median(ratios.express).toFixed(2)}  (median of per-round ratios; target >= 0.70)`);
    console.log(`hub/bare    = ${median(ratios.bare).toFixed(2)}`);
    console.log(`cpu per request, express/hub = ${(med('express', 'cpu') / med('hub', 'cpu')).toFixed(2)}`);
    console.log(`hub latency p50 = ${med('hub', 'p50')} ms, p99 = ${med('hub', 'p99')} ms`);
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
    for (const t of targets) t.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    for (const dir of [dataDir, `${dataDir}-429`, `${dataDir}-redis`]) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
