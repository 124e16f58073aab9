import { CPU_CEILING_MS, type Shot, fire, hostileMailbox, prng, shotGenerator } from './fuzz-shots';
import { startSpawned } from './spawned';

/**
 * `npm run bench:fuzz`: the seeded fuzz run of 10,000 requests (bench/fuzz-shots.ts) against the compiled Hub in
 * a process of its own (embedded database, the Google sandbox in another process). Prints, per kind of request,
 * the answers, the Hub process's CPU per request (all its threads, the HTML workers included; /proc, Linux) and
 * latency; exits 1 on any 5xx or when a kind's Hub CPU per request exceeds its ceiling (CPU_CEILING_MS).
 *
 * Knobs: FUZZ_REQUESTS (10000), FUZZ_SEED (20261123).
 */

const env = process.env; // bench entry point: reads its own knobs
const REQUESTS = Number(env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(env.FUZZ_SEED ?? 20_261_123);
const EMAIL = 'ana@acme.example';

interface KindStats {
  count: number;
  statuses: Map<number, number>;
  cpuMs: number;
  latencies: number[];
}

async function main() {
  const spawned = await startSpawned({ email: EMAIL, messages: hostileMailbox(EMAIL), hubEnv: { HUB_TOOL_DEADLINE_MS: '15000' } });
  let failed = false;
  try {
    const next = shotGenerator(prng(SEED), { customerId: spawned.customerId, messageIds: spawned.messages.map((m) => m.id) });
    const shots: Shot[] = Array.from({ length: REQUESTS }, next);
    const kinds = new Map<string, KindStats>();
    const startCpu = spawned.hubCpuMs();
    const t0 = performance.now();
    for (const [i, shot] of shots.entries()) {
      const before = spawned.hubCpuMs();
      const res = await fire(spawned.hubUrl, spawned.secret, shot);
      const stats: KindStats = kinds.get(shot.kind) ?? { count: 0, statuses: new Map<number, number>(), cpuMs: 0, latencies: [] };
      stats.count++;
      stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
      stats.cpuMs += spawned.hubCpuMs() - before;
      stats.latencies.push(res.ms);
      kinds.set(shot.kind, stats);
      if (res.status >= 500) {
        failed = true;
        process.stdout.write(
          `request ${i} (${shot.kind}) answered ${res.status}: ${shot.method} ${shot.path.slice(0, 200)} ${shot.body?.slice(0, 200) ?? ''} -> ${res.text.slice(0, 300)}\n`,
        );
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpuPerRequest = (spawned.hubCpuMs() - startCpu) / REQUESTS;
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
    process.stdout.write(`fuzz: ${REQUESTS} requests, seed ${SEED}, ${seconds.toFixed(1)} s; Hub CPU ${cpuPerRequest.toFixed(2)} ms per request overall\n`);
    process.stdout.write(
      `${'kind'.padEnd(10)}${'count'.padStart(7)}  ${'CPU ms/req'.padStart(10)}  ${'ceiling'.padStart(8)}  ${'p50 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}  answers\n`,
    );
    for (const [kind, s] of [...kinds].sort()) {
      const answers = [...s.statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([status, n]) => `${status}×${n}`)
        .join(' ');
      const cpu = s.cpuMs / s.count;
      const ceiling = CPU_CEILING_MS[kind as Shot['kind']];
      process.stdout.write(
        `${kind.padEnd(10)}${String(s.count).padStart(7)}  ${cpu.toFixed(2).padStart(10)}  ${String(ceiling).padStart(8)}  ${pct(s.latencies, 0.5).toFixed(1).padStart(8)}  ${pct(s.latencies, 0.99).toFixed(1).padStart(8)}  ${answers}\n`,
      );
      if (cpu > ceiling) {
        failed = true;
        process.stdout.write(`FAIL: ${kind} requests cost the Hub ${cpu.toFixed(2)} ms of CPU each, over their ${ceiling} ms ceiling\n`);
      }
    }
  } finally {
    await spawned.stop();
  }
  if (failed) process.exit(1);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
