import { fail, hubError, ok } from '../../src/core/errors';
import { createToolCache } from '../../src/tools/tool-cache';

/** The per-process memo tools keep slow-changing Google facts in. */

describe('tool cache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000;
  });

  test('when a key is asked twice within its TTL, then it is loaded once', async () => {
    const cache = createToolCache({ now: clock });
    const load = jest.fn(async () => ok('me@example.com'));
    expect(await cache.memo('k', 60_000, load)).toEqual(ok('me@example.com'));
    now += 59_999;
    expect(await cache.memo('k', 60_000, load)).toEqual(ok('me@example.com'));
    expect(load).toHaveBeenCalledTimes(1);
    now += 1;
    await cache.memo('k', 60_000, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  test('when concurrent calls ask for one key, then they share one load', async () => {
    const cache = createToolCache({ now: clock });
    let release!: () => void;
    const load = jest.fn(() => new Promise<ReturnType<typeof ok<number>>>((r) => (release = () => r(ok(7)))));
    const both = Promise.all([cache.memo('k', 1000, load), cache.memo('k', 1000, load)]);
    release();
    expect(await both).toEqual([ok(7), ok(7)]);
    expect(load).toHaveBeenCalledTimes(1);
  });

  test('when a load fails, then nothing is kept and the next call loads again', async () => {
    const cache = createToolCache({ now: clock });
    const failing = jest.fn(async () => fail(hubError('EXTERNAL_API_ERROR', 'down')));
    expect((await cache.memo('k', 1000, failing)).ok).toBe(false);
    const load = jest.fn(async () => ok(1));
    expect(await cache.memo('k', 1000, load)).toEqual(ok(1));
    expect(load).toHaveBeenCalledTimes(1);
  });

  test('when more keys than the bound are kept, then the oldest go first; forget drops one', async () => {
    const cache = createToolCache({ now: clock, maxEntries: 2 });
    const load = jest.fn(async () => ok(0));
    for (const k of ['a', 'b', 'c']) await cache.memo(k, 1000, load);
    await cache.memo('c', 1000, load);
    await cache.memo('b', 1000, load);
    expect(load).toHaveBeenCalledTimes(3);
    await cache.memo('a', 1000, load);
    expect(load).toHaveBeenCalledTimes(4);
    cache.forget('a');
    await cache.memo('a', 1000, load);
    expect(load).toHaveBeenCalledTimes(5);
  });
});
