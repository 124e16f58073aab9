import { createWeightedLog } from '../../src/protection/weighted-log';

/**
 * The sliding log behind the mailbox budgets, weighted: one entry per charge (a request, or a body's bytes — Outlook's
 * "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period") and a running total, so a budget of 150 MB
 * costs one entry per request, not one per byte, and a refusal's wait is exact.
 */

const clock = () => {
  let t = 5_000_000;
  return { now: () => t, at: (ms: number) => (t = 5_000_000 + ms) };
};

describe('the weighted sliding log', () => {
  it('when weights fill the budget, then a charge waits exactly until the oldest entries whose weight makes room have left', () => {
    const c = clock();
    const log = createWeightedLog(1_000, 10_000, c.now);
    for (const [ms, bytes] of [
      [0, 300],
      [1_000, 300],
      [2_000, 300],
    ] as const) {
      c.at(ms);
      expect(log.charge('ana', bytes)).toEqual({ ok: true });
    }
    c.at(3_000);
    expect(log.used('ana')).toBe(900);
    // 900 + 500 is 400 over: the entries of 0 s and 1 s must leave (300 + 300 ≥ 400), the second at 11 s.
    expect(log.charge('ana', 500)).toEqual({ ok: false, waitMs: 8_000, neverFits: false });
    expect(log.charge('ana', 100)).toEqual({ ok: true }); // what fits still fits
    c.at(11_000);
    expect(log.used('ana')).toBe(400);
    expect(log.charge('ana', 500)).toEqual({ ok: true });
  });

  it('when an entry leaves the window, then its whole weight leaves with it at once, not byte by byte', () => {
    const c = clock();
    const log = createWeightedLog(100, 5_000, c.now);
    expect(log.charge('ana', 100).ok).toBe(true);
    c.at(4_999);
    expect(log.charge('ana', 1)).toEqual({ ok: false, waitMs: 1, neverFits: false });
    c.at(5_000);
    expect(log.used('ana')).toBe(0);
    expect(log.charge('ana', 100).ok).toBe(true);
  });

  it('when one charge weighs more than the whole budget, then it is refused at once as never fitting, and nothing is spent', () => {
    const c = clock();
    const log = createWeightedLog(1_000, 300_000, c.now);
    expect(log.charge('ana', 1_001)).toEqual({ ok: false, waitMs: 300_000, neverFits: true });
    expect(log.used('ana')).toBe(0);
    expect(log.charge('ana', 1_000)).toEqual({ ok: true });
  });

  it('when a refused charge would fit later, then nothing of it is spent meanwhile', () => {
    const c = clock();
    const log = createWeightedLog(10, 1_000, c.now);
    expect(log.charge('ana', 8).ok).toBe(true);
    for (let i = 0; i < 5; i++) expect(log.charge('ana', 5).ok).toBe(false);
    expect(log.used('ana')).toBe(8);
  });

  it('when mailboxes charge, then each has its own log, and one idle for a window is forgotten', () => {
    const c = clock();
    const log = createWeightedLog(10, 1_000, c.now);
    expect(log.charge('ana', 10).ok).toBe(true);
    expect(log.charge('ben', 10).ok).toBe(true);
    expect(log.charge('ana', 1).ok).toBe(false);
    c.at(60_000);
    expect(log.charge('ana', 10).ok).toBe(true);
    expect(log.used('ben')).toBe(0);
  });

  it('when a million charges pass through one mailbox, then each costs amortized constant time and the total stays exact', () => {
    const c = clock();
    const log = createWeightedLog(1_000_000, 1_000, c.now);
    const started = performance.now();
    let admitted = 0;
    for (let i = 0; i < 1_000_000; i++) {
      c.at(i); // one charge a millisecond: a thousand entries in the window at any time
      if (log.charge('ana', 1 + (i % 7)).ok) admitted++;
    }
    expect(admitted).toBe(1_000_000);
    // At 999,999 ms the window (998,999 … 999,999] holds the charges of 999,000 … 999,999 ms.
    let expected = 0;
    for (let i = 999_000; i < 1_000_000; i++) expected += 1 + (i % 7);
    expect(log.used('ana')).toBe(expected);
    expect(performance.now() - started).toBeLessThan(2_000); // a per-unit or re-summing log takes minutes here
  });
});
