import { TaskCancelledError } from 'cockatiel';
import { GaxiosError, type GaxiosOptionsPrepared, type GaxiosResponse } from 'gaxios';
import type { UpstreamConfig } from '../../src/config';
import { classifyGoogleError, isUpstreamFailure } from '../../src/providers/google/errors';
import { createUpstream } from '../../src/providers/google/resilience';
import { type FailureKind, backoffCeilingMs, jitteredBackoffMs, mayRetry, retryAfterSeconds, retryWaitMs } from '../../src/resilience';
import { testConfig } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/** The pure parts of the upstream layer: failure mapping, Retry-After, backoff, and which failures are repeated. */

const TOKEN = 'ya29.a0AfB_secret-access-token-value';
const URL_WITH_QUERY = `https://www.googleapis.com/calendar/v3/users/me/settings/timezone?access_token=${TOKEN}&alt=json`;
const config = { url: new URL(URL_WITH_QUERY), headers: new Headers({ authorization: `Bearer ${TOKEN}` }), method: 'GET' } as unknown as GaxiosOptionsPrepared;

function httpError(status: number, data: unknown, headers: Record<string, string> = {}): GaxiosError {
  const response = { status, statusText: '', headers: new Headers(headers), data, config, bodyUsed: true } as unknown as GaxiosResponse;
  return new GaxiosError(`Request failed with status code ${status} for ${URL_WITH_QUERY}`, config, response);
}

const google = (code: number, message: string, reason?: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message, ...(reason ? { errors: [{ message, domain: 'global', reason }] } : {}), ...extra },
});

/** A transport failure as gaxios (node-fetch) produces it: code copied from the FetchError cause. */
function networkError(code: string, nested = false): GaxiosError {
  const system = Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
  const cause = nested
    ? Object.assign(new TypeError('fetch failed'), { cause: system })
    : Object.assign(new Error(`request to ${URL_WITH_QUERY} failed`), { code, type: 'system' });
  return new GaxiosError(`request to ${URL_WITH_QUERY} failed, reason: ${code}`, config, undefined, cause);
}

describe('classifyGoogleError', () => {
  const NOW = Date.parse('2026-03-01T10:00:00Z');
  const rows: Array<[string, unknown, { code: string; retryable: boolean; details?: Record<string, unknown>; retryAfterS?: number; kind: FailureKind }]> = [
    [
      '429 with Retry-After 7',
      httpError(429, google(429, 'Resource has been exhausted', 'rateLimitExceeded'), { 'retry-after': '7' }),
      { code: 'RATE_LIMITED', retryable: true, retryAfterS: 7, details: { scope: 'upstream', reason: 'rateLimitExceeded' }, kind: 'rate_limited' },
    ],
    [
      '429 without a reason',
      httpError(429, google(429, 'Too many')),
      { code: 'RATE_LIMITED', retryable: true, retryAfterS: 1, details: { scope: 'upstream', reason: 'rateLimitExceeded' }, kind: 'rate_limited' },
    ],
    [
      '403 rateLimitExceeded',
      httpError(403, google(403, 'Rate Limit Exceeded', 'rateLimitExceeded')),
      { code: 'RATE_LIMITED', retryable: true, retryAfterS: 1, details: { scope: 'upstream', reason: 'rateLimitExceeded' }, kind: 'rate_limited' },
    ],
    [
      '403 userRateLimitExceeded',
      httpError(403, google(403, 'User Rate Limit Exceeded', 'userRateLimitExceeded')),
      { code: 'RATE_LIMITED', retryable: true, retryAfterS: 1, details: { scope: 'upstream', reason: 'userRateLimitExceeded' }, kind: 'rate_limited' },
    ],
    [
      '401',
      httpError(401, google(401, 'Invalid Credentials', 'authError')),
      { code: 'INTEGRATION_EXPIRED', retryable: false, details: { reason: 'token_rejected' }, kind: 'token_rejected' },
    ],
    [
      '403 insufficientPermissions',
      httpError(403, google(403, 'Request had insufficient authentication scopes.', 'insufficientPermissions')),
      { code: 'INTEGRATION_PERMISSION_DENIED', retryable: false, details: { reason: 'insufficient_scopes' }, kind: 'permission_denied' },
    ],
    [
      '403 ACCESS_TOKEN_SCOPE_INSUFFICIENT (ErrorInfo only)',
      httpError(
        403,
        google(403, 'Insufficient scopes', undefined, {
          status: 'PERMISSION_DENIED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' }],
        }),
      ),
      { code: 'INTEGRATION_PERMISSION_DENIED', retryable: false, details: { reason: 'insufficient_scopes' }, kind: 'permission_denied' },
    ],
    [
      '403 forbidden',
      httpError(403, google(403, 'Delegation denied for x@y.example', 'forbidden')),
      {
        code: 'EXTERNAL_API_ERROR',
        retryable: false,
        details: { upstream_status: 403, reason: 'forbidden', message: 'Delegation denied for x@y.example' },
        kind: 'client_error',
      },
    ],
    [
      '404',
      httpError(404, google(404, 'Not Found', 'notFound')),
      { code: 'RESOURCE_NOT_FOUND', retryable: false, details: { upstream_status: 404, reason: 'notFound' }, kind: 'not_found' },
    ],
    [
      '410',
      httpError(410, google(410, 'Resource has been deleted', 'deleted')),
      { code: 'RESOURCE_NOT_FOUND', retryable: false, details: { upstream_status: 410, reason: 'deleted' }, kind: 'not_found' },
    ],
    [
      '409 duplicate',
      httpError(409, google(409, 'The requested identifier already exists.', 'duplicate')),
      { code: 'CONFLICT', retryable: false, details: { reason: 'duplicate' }, kind: 'conflict' },
    ],
    [
      '400 invalid',
      httpError(400, google(400, 'Invalid value for: x', 'invalid')),
      {
        code: 'EXTERNAL_API_ERROR',
        retryable: false,
        details: { upstream_status: 400, reason: 'invalid', message: 'Invalid value for: x' },
        kind: 'client_error',
      },
    ],
    [
      '400 OAuth shape',
      httpError(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
      {
        code: 'EXTERNAL_API_ERROR',
        retryable: false,
        details: { upstream_status: 400, reason: 'invalid_grant', message: 'Token has been expired or revoked.' },
        kind: 'client_error',
      },
    ],
    ['400 without a body', httpError(400, ''), { code: 'EXTERNAL_API_ERROR', retryable: false, details: { upstream_status: 400 }, kind: 'client_error' }],
    ['408', httpError(408, ''), { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' }, kind: 'timeout' }],
    [
      '500',
      httpError(500, google(500, 'Backend Error', 'backendError')),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 500, reason: 'backendError' }, kind: 'server_error' },
    ],
    [
      '503 (body as text)',
      httpError(503, JSON.stringify(google(503, 'Unavailable', 'backendError'))),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 503, reason: 'backendError' }, kind: 'server_error' },
    ],
    ['502 without a body', httpError(502, ''), { code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 502 }, kind: 'server_error' }],
    [
      '403 quotaExceeded (Calendar usage limits)',
      httpError(403, google(403, 'Calendar usage limits exceeded.', 'quotaExceeded')),
      { code: 'RATE_LIMITED', retryable: true, retryAfterS: 3600, details: { scope: 'upstream_quota', reason: 'quotaExceeded' }, kind: 'quota_exceeded' },
    ],
    [
      '403 rateLimitExceeded naming its end in the message',
      httpError(403, google(403, 'User-rate limit exceeded.  Retry after 2026-03-01T10:15:00.000Z', 'rateLimitExceeded')),
      { code: 'RATE_LIMITED', retryable: true, retryAfterS: 900, details: { scope: 'upstream', reason: 'rateLimitExceeded' }, kind: 'rate_limited' },
    ],
    [
      'ECONNRESET (dropped)',
      networkError('ECONNRESET'),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'network', code: 'ECONNRESET' }, kind: 'network' },
    ],
    [
      'ECONNREFUSED',
      networkError('ECONNREFUSED'),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'network', code: 'ECONNREFUSED' }, kind: 'network' },
    ],
    [
      'ENOTFOUND nested (undici shape)',
      networkError('ENOTFOUND', true),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'network', code: 'ENOTFOUND' }, kind: 'network' },
    ],
    [
      'AbortError',
      Object.assign(new GaxiosError('The operation was aborted.', config), { code: 'AbortError' }),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' }, kind: 'timeout' },
    ],
    [
      'TimeoutError',
      Object.assign(new GaxiosError('timed out', config), { code: 'TimeoutError' }),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' }, kind: 'timeout' },
    ],
    [
      'per-attempt timeout',
      new TaskCancelledError('Operation timed out after 300ms'),
      { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' }, kind: 'timeout' },
    ],
  ];

  test.each(rows)('when Google fails with %s, then it maps to the documented HubError', (_name, err, expected) => {
    const failure = classifyGoogleError(err, { now: NOW, operation: 'calendar.settings.get', integration: 'google_calendar', quotaCooldownMs: 3600_000 });
    expect(failure?.kind).toBe(expected.kind);
    expect(failure?.error.code).toBe(expected.code);
    expect(failure?.error.retryable).toBe(expected.retryable);
    expect(failure?.error.details).toEqual(expected.details);
    expect(failure?.error.retryAfterS).toBe(expected.retryAfterS);
  });

  test("when the failure is not Google's (a bug in the calling code), then it is not mapped", () => {
    expect(classifyGoogleError(new TypeError('cannot read properties of undefined'))).toBeUndefined();
    expect(classifyGoogleError('boom')).toBeUndefined();
    expect(classifyGoogleError(undefined)).toBeUndefined();
    expect(classifyGoogleError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBeUndefined();
  });

  test('when a rate limit carries no Retry-After, then retryAfterS is the backoff the Hub would have waited, at least 1 s', () => {
    const err = httpError(429, google(429, 'Too many', 'rateLimitExceeded'));
    expect(classifyGoogleError(err, { fallbackRetryAfterMs: 2300 })?.error.retryAfterS).toBe(3);
    expect(classifyGoogleError(err, { fallbackRetryAfterMs: 40 })?.error.retryAfterS).toBe(1);
    const dated = httpError(429, google(429, 'Too many'), { 'retry-after': new Date(NOW + 90_000).toUTCString() });
    expect(classifyGoogleError(dated, { now: NOW, fallbackRetryAfterMs: 2300 })).toMatchObject({ retryAfterMs: 90_000, error: { retryAfterS: 90 } });
  });

  test('when an error carries the URL, token and headers, then none of them reaches the HubError', () => {
    const errs = [
      httpError(400, google(400, `Bad value; see ${URL_WITH_QUERY} (Bearer ${TOKEN})`, 'invalid')),
      httpError(500, google(500, 'x', 'backendError')),
      networkError('ECONNRESET'),
      httpError(409, google(409, `Conflict at https://example.com/a?key=${TOKEN}`, 'duplicate')),
    ];
    for (const err of errs) {
      const text = JSON.stringify(classifyGoogleError(err)?.error);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('?');
      expect(text).not.toMatch(/authorization/i);
    }
    const first = classifyGoogleError(errs[0]);
    expect(first?.error.details?.message).toBe('Bad value; see https://www.googleapis.com/calendar/v3/users/me/settings/timezone (Bearer [redacted])');
  });

  test("when Google's message is long, then details.message keeps at most 300 characters", () => {
    const failure = classifyGoogleError(httpError(400, google(400, 'x'.repeat(1000), 'invalid')));
    expect((failure!.error.details!.message as string).length).toBe(300);
  });

  test('when Google\'s message is 1 MB dense in "http://" (a quadratic case for the URL pattern), then it is classified, and a long one keeps no token', () => {
    // Its CPU cost (about that of a short one) is measured alone: test/timing/cpu-budgets.test.ts.
    const hostile = httpError(400, google(400, 'http://'.repeat(150_000), 'invalid'));
    expect((classifyGoogleError(hostile)!.error.details!.message as string).length).toBeLessThanOrEqual(300);
    const long = httpError(400, google(400, `${'a '.repeat(900)}see https://x.example/p?access_token=ya29.${'z'.repeat(400)}`, 'invalid'));
    expect(JSON.stringify(classifyGoogleError(long)?.error)).not.toMatch(/ya29|access_token/);
  });

  test('when failures are filtered for the breaker, then only 5xx, network and timeouts count — never 4xx, 429 included', () => {
    expect(isUpstreamFailure(httpError(500, ''))).toBe(true);
    expect(isUpstreamFailure(httpError(503, ''))).toBe(true);
    expect(isUpstreamFailure(networkError('ECONNRESET'))).toBe(true);
    expect(isUpstreamFailure(networkError('ECONNREFUSED'))).toBe(true);
    expect(isUpstreamFailure(new TaskCancelledError())).toBe(true);
    for (const status of [400, 401, 403, 404, 408, 409, 410, 429]) expect(isUpstreamFailure(httpError(status, ''))).toBe(false);
    expect(isUpstreamFailure(httpError(403, google(403, 'Rate Limit Exceeded', 'rateLimitExceeded')))).toBe(false);
    expect(isUpstreamFailure(new TypeError('bug'))).toBe(false);
  });
});

describe('which failures are repeated', () => {
  const cases: Array<[string, boolean, boolean, unknown]> = [
    // name, retried when idempotent, retried when not, error
    ['500', true, false, httpError(500, '')],
    ['503', true, false, httpError(503, '')],
    ['429', true, false, httpError(429, '')],
    ['403 rateLimitExceeded', true, false, httpError(403, google(403, 'x', 'rateLimitExceeded'))],
    ['408', true, false, httpError(408, '')],
    ['per-attempt timeout', true, false, new TaskCancelledError()],
    ['ECONNRESET (bytes may have left)', true, false, networkError('ECONNRESET')],
    ['ECONNREFUSED', true, true, networkError('ECONNREFUSED')],
    ['ENOTFOUND', true, true, networkError('ENOTFOUND', true)],
    ['EAI_AGAIN', true, true, networkError('EAI_AGAIN')],
    ['400', false, false, httpError(400, '')],
    ['401', false, false, httpError(401, '')],
    ['403 insufficientPermissions', false, false, httpError(403, google(403, 'x', 'insufficientPermissions'))],
    ['404', false, false, httpError(404, '')],
    ['409', false, false, httpError(409, '')],
    ['403 quotaExceeded', false, false, httpError(403, google(403, 'Calendar usage limits exceeded.', 'quotaExceeded'))],
  ];
  test.each(cases)('when the failure is %s, then it is retried for idempotent ops: %s, for non-idempotent ops: %s', (_name, idempotent, nonIdempotent, err) => {
    const failure = classifyGoogleError(err);
    expect(failure).toBeDefined();
    expect(mayRetry(failure!, true)).toBe(idempotent);
    expect(mayRetry(failure!, false)).toBe(nonIdempotent);
  });
});

describe('retryAfterSeconds', () => {
  const NOW = Date.parse('2026-03-01T10:00:00Z');
  test('when Retry-After is delay-seconds, then that many seconds', () => {
    expect(retryAfterSeconds(new Headers({ 'Retry-After': '120' }), NOW)).toBe(120);
    expect(retryAfterSeconds(new Headers({ 'retry-after': ' 0 ' }), NOW)).toBe(0);
    expect(retryAfterSeconds({ 'Retry-After': '7' }, NOW)).toBe(7);
    expect(retryAfterSeconds({ 'retry-after': ['9', '10'] }, NOW)).toBe(9);
  });
  test('when Retry-After is an HTTP date, then the seconds until it (0 when past), in each of the three forms', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'Sun, 01 Mar 2026 10:00:30 GMT' }), NOW)).toBe(30);
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'Sun, 01 Mar 2026 10:00:30 GMT' }), NOW + 500)).toBe(30);
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'Sun, 01 Mar 2026 09:00:00 GMT' }), NOW)).toBe(0);
    expect(retryAfterSeconds({ 'retry-after': 'Sunday, 01-Mar-26 10:01:00 GMT' }, NOW)).toBe(60);
    expect(retryAfterSeconds({ 'retry-after': 'Sun Mar  1 10:02:00 2026' }, NOW)).toBe(120);
  });
  test('when Retry-After is absent or garbage, then undefined', () => {
    for (const v of ['', 'soon', '1.5', '-3', '1e3', 'Mon, 99 Foo 2026 99:99:99 GMT', '2026-03-01T10:00:30Z', '12 monkeys']) {
      expect(retryAfterSeconds(new Headers({ 'retry-after': v }), NOW)).toBeUndefined();
    }
    expect(retryAfterSeconds(new Headers(), NOW)).toBeUndefined();
    expect(retryAfterSeconds(undefined, NOW)).toBeUndefined();
    expect(retryAfterSeconds('retry-after: 5', NOW)).toBeUndefined();
  });
});

describe('backoff', () => {
  const settings = { retryBaseMs: 100, retryMaxMs: 1000 };
  afterEach(() => jest.restoreAllMocks());

  test('when retries go on, then the ceiling doubles from the base and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 30, 2000].map((n) => backoffCeilingMs(n, settings))).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  test('when jitter is drawn, then every wait lies in [0, min(cap, base·2^n)] and the range is used', () => {
    for (let n = 0; n < 8; n++) {
      const ceiling = backoffCeilingMs(n, settings);
      const draws = Array.from({ length: 500 }, () => jitteredBackoffMs(n, settings));
      expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...draws)).toBeLessThanOrEqual(ceiling);
      expect(Math.max(...draws)).toBeGreaterThan(ceiling / 2); // full jitter, not a fixed delay
      expect(Math.min(...draws)).toBeLessThan(ceiling / 2);
    }
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect(jitteredBackoffMs(3, settings)).toBe(0);
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    expect(jitteredBackoffMs(3, settings)).toBe(799);
  });

  test('when Google asks for a wait, then the wait is the longer of it and the jittered backoff', () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(retryWaitMs(2, undefined, settings)).toBe(200);
    expect(retryWaitMs(2, 1000, settings)).toBe(1000);
    expect(retryWaitMs(2, 50, settings)).toBe(200);
  });
});

describe('createUpstream (without a network)', () => {
  const cfg: UpstreamConfig = {
    ...testConfig().upstream,
    toolDeadlineMs: 2000,
    attemptTimeoutMs: 200,
    maxRetries: 2,
    retryBaseMs: 1,
    retryMaxMs: 5,
    breakerFailures: 100,
    breakerHalfOpenMs: 1000,
  };
  const op = { integration: 'google_gmail' as const, operation: 'gmail.users.messages.send', idempotent: false };
  const deadline = () => AbortSignal.timeout(5000);

  test('when a non-idempotent call is refused before connecting, then it is retried; when the connection drops, then it is not', async () => {
    const upstream = createUpstream(cfg, captureLogs().logger);
    let calls = 0;
    const refusedOnce = await upstream.call(op, async () => (++calls === 1 ? Promise.reject(networkError('ECONNREFUSED')) : 'sent'), { deadline: deadline() });
    expect(refusedOnce).toEqual({ ok: true, value: 'sent' });
    expect(calls).toBe(2);

    calls = 0;
    const dropped = await upstream.call(op, async () => (++calls, Promise.reject(networkError('ECONNRESET'))), { deadline: deadline() });
    expect(calls).toBe(1);
    expect(dropped).toMatchObject({ ok: false, error: { code: 'EXTERNAL_API_ERROR', retryable: false, details: { reason: 'network', outcome: 'unknown' } } });
  });

  test('when fn throws something that is not a Google failure, then it is re-thrown (a bug), not retried', async () => {
    const upstream = createUpstream(cfg, captureLogs().logger);
    let calls = 0;
    const bug = new TypeError('undefined is not a function');
    await expect(
      upstream.call(
        { ...op, idempotent: true },
        async () => {
          calls++;
          throw bug;
        },
        { deadline: deadline() },
      ),
    ).rejects.toBe(bug);
    expect(calls).toBe(1);
  });

  test('when the deadline has already passed, then no attempt is made and the answer is a timeout', async () => {
    const upstream = createUpstream(cfg, captureLogs().logger);
    const onAttempt = jest.fn();
    const aborted = AbortSignal.abort();
    const result = await upstream.call({ ...op, idempotent: true }, async () => 'x', { deadline: aborted, onAttempt });
    expect(result).toMatchObject({ ok: false, error: { code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' } } });
    expect(onAttempt).not.toHaveBeenCalled();
  });

  test('when fn ignores the attempt signal, then the attempt still times out and is retried', async () => {
    const upstream = createUpstream({ ...cfg, attemptTimeoutMs: 50 }, captureLogs().logger);
    let calls = 0;
    const result = await upstream.call(
      { ...op, idempotent: true },
      (_signal) => (++calls === 1 ? new Promise<string>(() => undefined) : Promise.resolve('late')),
      { deadline: deadline() },
    );
    expect(result).toEqual({ ok: true, value: 'late' });
    expect(calls).toBe(2);
  });

  test("when nothing has failed yet, then every integration's circuit reads closed", () => {
    expect(createUpstream(cfg, captureLogs().logger).circuits()).toEqual({ google_calendar: 'closed', google_gmail: 'closed' });
  });
});
