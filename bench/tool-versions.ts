import { BUILT_IN_TOOLS } from '../src/tools';
import { createToolRegistry } from '../src/tools/registry';

/**
 * `npm run bench:versions`: what resolving the execute request's `tool` string costs per call, for each form
 * (bare name, `@major`, `@major.minor.patch`, a version that matches nothing, an unknown name), beside a plain
 * Map lookup by name — what the registry did before versions — measured interleaved in the same run.
 * Every request resolves twice (the rate-limit charge, then the call).
 */

const N = Number(process.env.BENCH_ITERATIONS ?? 2_000_000);
const ROUNDS = 7;
const registry = createToolRegistry(BUILT_IN_TOOLS);
const byName = new Map(BUILT_IN_TOOLS.map((t) => [t.name, t]));

const cases: Array<[string, (spec: string) => unknown, string]> = [
  ['Map.get (before)', (s) => byName.get(s), 'hub_echo'],
  ['resolve hub_echo', (s) => registry.resolve(s), 'hub_echo'],
  ['resolve email_search@1', (s) => registry.resolve(s), 'email_search@1'],
  ['resolve email_search@2.0.0', (s) => registry.resolve(s), 'email_search@2.0.0'],
  ['resolve email_search@9 (no match)', (s) => registry.resolve(s), 'email_search@9'],
  ['resolve no_such_tool', (s) => registry.resolve(s), 'no_such_tool'],
];

let sink = 0;
const perCall: number[][] = cases.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  cases.forEach(([, fn, spec], i) => {
    const start = process.hrtime.bigint();
    for (let k = 0; k < N; k++) if (fn(spec)) sink++;
    perCall[i]!.push(Number(process.hrtime.bigint() - start) / N);
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [i, [label]] of cases.entries())
  console.log(`${label.padEnd(36)} ${median(perCall[i]!).toFixed(1).padStart(8)} ns per call (median of ${ROUNDS} rounds × ${N})`);
if (sink === 0) console.log('(nothing resolved)');
