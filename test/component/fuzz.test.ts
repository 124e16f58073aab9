import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CPU_CEILING_MS, type Shot, fire, hostileMailbox, prng, shotGenerator } from '../../bench/fuzz-shots';
import { type Spawned, startSpawned } from '../../bench/spawned';

/**
 * The seeded fuzz run in the suite: the first 1,500 requests of `npm run bench:fuzz` (which runs 10,000) — mangled
 * envelopes, unknown-key floods, ids that are path syntax, keyword-dense URLs, hostile HTML read, searched and
 * sent — against the compiled Hub in its own process. None may answer 5xx, and each kind of request must stay
 * under its ceiling of Hub CPU per request (bench/fuzz-shots.ts), measured from /proc for the Hub process alone.
 */

jest.setTimeout(180_000);
const SEED = 20_261_123;
const REQUESTS = 1_500;
const EMAIL = 'ana@acme.example';

let spawned: Spawned;
beforeAll(async () => {
  if (!existsSync(join(__dirname, '..', '..', 'dist', 'src', 'main.js'))) throw new Error('dist/ is missing: npm test builds it first (npm run build)');
  spawned = await startSpawned({ email: EMAIL, messages: hostileMailbox(EMAIL), hubEnv: { HUB_TOOL_DEADLINE_MS: '15000' } });
});
afterAll(() => spawned?.stop());

describe('seeded fuzz run', () => {
  it(`when ${REQUESTS} generated requests arrive (seed ${SEED}), then none answers 5xx and each kind stays under its CPU ceiling`, async () => {
    const next = shotGenerator(prng(SEED), { customerId: spawned.customerId, messageIds: spawned.messages.map((m) => m.id) });
    const cpu = new Map<Shot['kind'], { count: number; ms: number }>();
    const failures: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const shot = next();
      const before = spawned.hubCpuMs();
      const res = await fire(spawned.hubUrl, spawned.secret, shot);
      const entry = cpu.get(shot.kind) ?? { count: 0, ms: 0 };
      cpu.set(shot.kind, { count: entry.count + 1, ms: entry.ms + spawned.hubCpuMs() - before });
      if (res.status >= 500)
        failures.push(
          `request ${i} (${shot.kind}) answered ${res.status}: ${shot.path.slice(0, 100)} ${shot.body?.slice(0, 200) ?? ''} -> ${res.text.slice(0, 200)}`,
        );
    }
    expect(failures).toEqual([]);
    const perKind = Object.fromEntries([...cpu].map(([kind, { count, ms }]) => [kind, Math.round((ms / count) * 100) / 100]));
    process.stdout.write(`fuzz (suite): Hub CPU ms per request by kind ${JSON.stringify(perKind)}\n`);
    for (const [kind, ms] of Object.entries(perKind)) expect({ kind, ms: ms <= CPU_CEILING_MS[kind as Shot['kind']] }).toEqual({ kind, ms: true });
  });
});
