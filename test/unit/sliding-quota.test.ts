import type { Redis } from 'ioredis';
import { createSlidingQuota } from '../../src/protection/sliding-quota';
import { type RedisHealth, RedisUnavailableError } from '../../src/store/redis-health';
import { captureLogs } from '../helpers/logs';

/**
 * A mailbox budget over a sliding window (Outlook's "10,000 API requests in a 10-minute period"): every unit counts
 * for the window after it was spent, so no two windows' budgets meet at a boundary, and a refusal's wait is the time
 * until the oldest units that make room leave the window.
 */

const { logger } = captureLogs('error');
const clock = () => {
  let t = 1_000_000;
  return { now: () => t, at: (ms: number) => (t = 1_000_000 + ms) };
};
const quotaOf = (units: number, windowS: number, c: ReturnType<typeof clock>) =>
  createSlidingQuota({ name: 'requests', units, windowS, replicas: 1, redisTimeoutMs: 50 }, null, logger, c.now);

describe('the sliding mailbox budget', () => {
  it('when the budget is spent, then the next charge waits exactly until the oldest unit leaves the window', async () => {
    const c = clock();
    const quota = quotaOf(3, 10, c);
    for (const ms of [0, 2_000, 4_000]) {
      c.at(ms);
      await expect(quota.charge('ana', 1)).resolves.toEqual({ ok: true });
    }
    c.at(6_000);
    await expect(quota.charge('ana', 1)).resolves.toEqual({ ok: false, retryAfterMs: 4_000, limit: 3, windowS: 10 });
    c.at(10_000); // the first unit has left: room for one, not for the whole budget
    await expect(quota.charge('ana', 1)).resolves.toEqual({ ok: true });
    await expect(quota.charge('ana', 1)).resolves.toMatchObject({ ok: false, retryAfterMs: 2_000 });
  });

  it("when a budget was spent late in one window's length, then early in the next length only the room its oldest units left is given", async () => {
    const c = clock();
    const quota = quotaOf(4, 2, c);
    await quota.charge('ana', 1); // t = 0
    c.at(1_500);
    for (let i = 0; i < 3; i++) expect((await quota.charge('ana', 1)).ok).toBe(true);
    c.at(2_100); // a fixed window would refill all four here
    expect((await quota.charge('ana', 1)).ok).toBe(true);
    await expect(quota.charge('ana', 1)).resolves.toMatchObject({ ok: false, retryAfterMs: 1_400 });
  });

  it('when a charge costs several units, then it fits only whole, and one costing more than the budget never fits', async () => {
    const c = clock();
    const quota = quotaOf(5, 10, c);
    expect((await quota.charge('ana', 3)).ok).toBe(true);
    c.at(1_000);
    await expect(quota.charge('ana', 3)).resolves.toMatchObject({ ok: false, retryAfterMs: 9_000 });
    expect((await quota.charge('ana', 2)).ok).toBe(true);
    await expect(quota.charge('ana', 6)).resolves.toMatchObject({ ok: false, retryAfterMs: 10_000 });
  });

  it('when another mailbox charges, then it draws on its own budget, and a mailbox idle for a window starts afresh', async () => {
    const c = clock();
    const quota = quotaOf(1, 5, c);
    expect((await quota.charge('ana', 1)).ok).toBe(true);
    expect((await quota.charge('ben', 1)).ok).toBe(true);
    expect((await quota.charge('ana', 1)).ok).toBe(false);
    c.at(60_000);
    expect((await quota.charge('ana', 1)).ok).toBe(true);
  });
});

/** A Redis whose breaker is open (`available: false`), or whose every command times out. */
function unavailableRedis(available: boolean) {
  const health = {
    available: () => available,
    call: () => Promise.reject(new RedisUnavailableError('Redis did not answer in time')),
  } as unknown as RedisHealth;
  return { client: { eval: () => Promise.reject(new Error('not reached')) } as unknown as Redis, health };
}

describe('the sliding mailbox budget while Redis is not available', () => {
  it.each([
    ['its breaker is open', false],
    ['it does not answer in time', true],
  ])(
    'when %s, then each of 3 replicas counts a third of the bytes in memory, and a body within the whole budget is never "never fits"',
    async (_case, available) => {
      const c = clock();
      const settings = { name: 'uploads', units: 900, windowS: 10, replicas: 3, redisTimeoutMs: 50 };
      const quota = createSlidingQuota(settings, unavailableRedis(available), logger, c.now);
      expect(await quota.charge('ana', 200)).toEqual({ ok: true });
      expect(await quota.charge('ana', 100)).toEqual({ ok: true });
      await expect(quota.charge('ana', 1)).resolves.toEqual({ ok: false, retryAfterMs: 10_000, limit: 900, windowS: 10 });
      // Above this replica's 300 but within the whole 900: it waits for Redis or the window, it is not refused for ever.
      await expect(quota.charge('ben', 500)).resolves.toEqual({ ok: false, retryAfterMs: 10_000, limit: 900, windowS: 10 });
      await expect(quota.charge('ben', 901)).resolves.toMatchObject({ ok: false, neverFits: true });
    },
  );
});
