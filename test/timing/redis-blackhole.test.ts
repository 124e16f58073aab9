import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { services } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { type HubBehindRedisProxy, hubBehindRedisProxy, timedPost } from '../helpers/outages';

/**
 * Timing tier (runs alone): hub_echo's latency while Redis stops answering (a black hole: connections kept open,
 * nothing forwarded) and comes back. One call per stall waits the 50 ms Redis budget and trips the shared
 * "unresponsive" state; every other call goes on in memory at once, so the echo path's p99 stays under 50 ms
 * before, during and after the stall — on a quiet machine and on one whose cores are all kept busy by other
 * processes. Which calls wait, and how many, is the component tier's (test/component/degraded.test.ts).
 */

const AGENTS = 2;
const P99_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length * 0.99)]!;

/** One busy-looping process per core, as other workloads on a shared machine would be. */
function busyMachine(): () => void {
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < availableParallelism(); i++) hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => hogs.forEach((h) => h.kill('SIGKILL'));
}

/** hub_echo from AGENTS agents back to back (one call at a time each) while Redis runs, stalls and heals. */
async function echoThroughABlackHole(hub: HubBehindRedisProxy) {
  let phase: 'warm-up' | 'measuring' | 'done' = 'warm-up';
  const echoes: number[] = [];
  const statuses = new Set<number>();
  const agent = async () => {
    while (phase !== 'done') {
      const res = await timedPost(hub.url, anExecuteBody());
      statuses.add(res.status);
      if (phase === 'measuring') echoes.push(res.ms);
    }
  };
  const running = Promise.all(Array.from({ length: AGENTS }, agent));
  await sleep(500);
  phase = 'measuring';
  await sleep(1_000);
  hub.proxy.blackhole();
  await sleep(3_000);
  hub.proxy.resume();
  let recovered = false;
  for (let i = 0; i < 40 && !recovered; i++) {
    await sleep(250);
    recovered = ((await fetch(`${hub.url}/readyz`).then((r) => r.json())) as { status: string }).status === 'ready';
  }
  await sleep(1_000);
  phase = 'done';
  await running;
  return { echoes, statuses: [...statuses], recovered };
}

const { redisUrl } = services();
(redisUrl ? describe : describe.skip)('when Redis stops answering (a black hole) and comes back', () => {
  jest.setTimeout(60_000);

  test.each([
    ['on a quiet machine', false],
    ['on a machine whose every core is busy', true],
  ])('then hub_echo p99 stays under 50 ms throughout, %s', async (_, busy) => {
    const hub = await hubBehindRedisProxy({ HUB_REDIS_PROBE_INTERVAL_MS: '500' });
    const stopHogs = busy ? busyMachine() : () => {};
    try {
      const run = await echoThroughABlackHole(hub);
      stopHogs();
      expect(run.recovered).toBe(true);
      expect(run.statuses).toEqual([200]);
      expect(run.echoes.length).toBeGreaterThan(300);
      expect(p99(run.echoes)).toBeLessThan(P99_MS);
    } finally {
      stopHogs();
      await hub.close();
    }
  });
});
