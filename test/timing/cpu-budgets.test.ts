import { GaxiosError, type GaxiosOptionsPrepared, type GaxiosResponse } from 'gaxios';
import { classifyGoogleError } from '../../src/providers/google/errors';
import { scrubLine } from '../../src/logger';
import { MAX_NESTING, nestingDepth, stripTags } from '../../src/workers/html-to-text';

/**
 * CPU budgets of the code that reads hostile input: each is linear, so a megabyte costs milliseconds. The
 * behaviour itself (what comes out) is tested in test/unit; here only the cost, measured alone (the timing tier).
 */

/** CPU milliseconds per call of `fn`, the best of a few rounds. */
const cpuMsPerCall = (fn: () => void, calls = 1, rounds = 3) => {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000 / calls);
  }
  return best;
};

describe('HTML mail', () => {
  it('when the input is 1 MB of nesting, then measuring it stops at the limit and costs under 200 ms', () => {
    const deep = '<div>x'.repeat(175_000);
    expect(cpuMsPerCall(() => nestingDepth(deep, MAX_NESTING))).toBeLessThan(200);
  });

  it('when hostile shapes are stripped, then each costs linear time: under 250 ms a megabyte', () => {
    for (const hostile of [
      '<script>'.repeat(100_000),
      '<!--'.repeat(200_000),
      '<a'.repeat(400_000),
      '</script'.repeat(100_000),
      '<div>x'.repeat(175_000),
      `&${'a'.repeat(800_000)}`,
    ]) {
      const ms = cpuMsPerCall(() => stripTags(hostile, 100_000));
      expect({ shape: hostile.slice(0, 12), fast: ms < 250 }).toEqual({ shape: hostile.slice(0, 12), fast: true });
    }
  });
});

describe("Google's error messages", () => {
  const google = (code: number, message: string, reason: string) => ({ error: { code, message, errors: [{ message, domain: 'global', reason }] } });
  const config = {
    url: new URL('https://www.googleapis.com/calendar/v3/users/me/settings/timezone'),
    headers: new Headers(),
    method: 'GET',
  } as unknown as GaxiosOptionsPrepared;
  const httpError = (status: number, data: unknown) => {
    const response = { status, statusText: '', headers: new Headers(), data, config, bodyUsed: true } as unknown as GaxiosResponse;
    return new GaxiosError(`Request failed with status code ${status}`, config, response);
  };

  test('when a message is 1 MB dense in "http://" (a quadratic case for the URL pattern), then scrubbing it costs under 20 ms', () => {
    const hostile = httpError(400, google(400, 'http://'.repeat(150_000), 'invalid'));
    expect(cpuMsPerCall(() => classifyGoogleError(hostile), 10, 1)).toBeLessThan(20); // unbounded: ~39 ms for 16 KB, minutes for 1 MB; bounded: ~1 ms
  });
});

describe('log lines', () => {
  it('when a 16 KB value is dense in sensitive words, then scrubbing stays linear (under 5 ms of CPU a line)', () => {
    // An unauthenticated URL of repeated `token` costs the access line this: it used to take ~66 ms (quadratic).
    const dense = JSON.stringify({ level: 30, url: `/${'token'.repeat(3277)}`, secret_hint: 'passw'.repeat(3277), msg: 'request completed' });
    const keys = `{${Array.from({ length: 1500 }, (_, i) => `"token${i}":"${'t'.repeat(5)}"`).join(',')}}`;
    expect(cpuMsPerCall(() => scrubLine(dense), 20, 5)).toBeLessThan(5);
    expect(cpuMsPerCall(() => scrubLine(keys), 20, 5)).toBeLessThan(5);
  });
});
