import type { Redis } from 'ioredis';
import { RedisUnavailableError, createRedisHealth } from '../../src/store/redis-health';
import { captureLogs } from '../helpers/logs';

/**
 * The Redis breaker's shared "unresponsive" state, against a stand-in client whose commands and PINGs the test
 * answers (or never answers): the first call that overruns its budget trips it, the calls already waiting give
 * up with it, the next ones do not wait, and one PING decides between "only slow" (closed) and "gone" (open).
 */

const never = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fakeRedis() {
  const fake = {
    status: 'ready',
    pingAnswers: true,
    disconnects: 0,
    ping: () => (fake.pingAnswers ? Promise.resolve('PONG') : never()),
    disconnect() {
      fake.disconnects++;
      fake.status = 'reconnecting';
    },
  };
  return fake;
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value, at: performance.now() }),
    (err: unknown) => ({ err, at: performance.now() }),
  );

describe('the Redis breaker', () => {
  test('when one call overruns its budget, then the calls already waiting give up with it, the next ones at once, and an unanswered PING opens the breaker', async () => {
    const redis = fakeRedis();
    redis.pingAnswers = false;
    const health = createRedisHealth(redis as unknown as Redis, { logger: captureLogs().logger, probeIntervalMs: 60_000 });
    const first = settle(health.call(never, 200));
    await sleep(100);
    const second = settle(health.call(never, 200));
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ err: expect.objectContaining({ message: 'redis did not answer within 200 ms' }) });
    // The second gave up when the first overran, not at its own deadline:
    expect(b).toMatchObject({ err: expect.objectContaining({ message: 'redis is not answering (another call waited its budget)' }) });
    expect(b.at).toBeLessThanOrEqual(a.at + 1);
    expect(health.state()).toBe('suspect');
    expect(health.stats()).toEqual({ timedOut: 1, shortCircuited: 1 });

    const command = jest.fn(() => Promise.resolve('never sent'));
    await expect(health.call(command, 200)).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(command).not.toHaveBeenCalled(); // the next call does not try Redis at all
    expect(health.stats()).toEqual({ timedOut: 1, shortCircuited: 2 });

    await sleep(300); // the PING's 250 ms
    expect(health.state()).toBe('open');
    expect(health.available()).toBe(false);
    expect(redis.disconnects).toBe(1);
    redis.status = 'end'; // stops the probe timer
  });

  test('when Redis was only slow, then the PING closes the breaker again and the next call uses Redis', async () => {
    const redis = fakeRedis();
    const health = createRedisHealth(redis as unknown as Redis, { logger: captureLogs().logger, probeIntervalMs: 60_000 });
    await expect(health.call(() => sleep(100).then(() => 'late'), 20)).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(health.state()).toBe('suspect');
    expect(health.available()).toBe(true); // a write may still use Redis meanwhile
    await sleep(20);
    expect(health.state()).toBe('closed');
    await expect(health.call(() => Promise.resolve('ok'), 20)).resolves.toBe('ok');
    expect(redis.disconnects).toBe(0);
    redis.status = 'end';
  });

  test('when the breaker is open and the client is ready again, then it is PINGed within the recovery pace and closes', async () => {
    const redis = fakeRedis();
    redis.pingAnswers = false;
    const health = createRedisHealth(redis as unknown as Redis, { logger: captureLogs().logger, probeIntervalMs: 60_000 });
    await expect(health.call(never, 10)).rejects.toBeInstanceOf(RedisUnavailableError);
    await sleep(300);
    expect(health.state()).toBe('open');
    redis.status = 'ready';
    redis.pingAnswers = true;
    await sleep(700); // at most 500 ms to the next probe, whatever the 60 s heartbeat
    expect(health.state()).toBe('closed');
    await expect(health.call(() => Promise.resolve(1), 20)).resolves.toBe(1);
    redis.status = 'end'; // stops the probe timer
  });
});
