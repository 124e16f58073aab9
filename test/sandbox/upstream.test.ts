import type { calendar_v3 } from 'googleapis/build/src/apis/calendar';
import { gmail_v1 } from 'googleapis/build/src/apis/gmail';
import { createServer } from 'node:net';
import type { UpstreamConfig } from '../../src/config';
import { type Upstream, type UpstreamOp, createUpstream, deadlineSignal } from '../../src/upstream';
import { captureLogs } from '../helpers/logs';
import { SCOPES, useTestSandbox } from '../helpers/sandbox';

/**
 * The upstream layer against the real Google sandbox, through googleapis: faults injected with the control API,
 * attempts counted both by `onAttempt` and by the sandbox's request log (status 0 = dropped connection).
 */

const ANA = 'ana@acme.example';
const BOB = 'bob@acme.example';
const CONFIG: UpstreamConfig = {
  toolDeadlineMs: 3000,
  attemptTimeoutMs: 300,
  maxRetries: 3,
  retryBaseMs: 20,
  retryMaxMs: 200,
  breakerFailures: 10,
  breakerHalfOpenMs: 500,
};
const SETTINGS: UpstreamOp = { integration: 'google_calendar', operation: 'calendar.settings.get', idempotent: true };
const SEND: UpstreamOp = { integration: 'google_gmail', operation: 'gmail.users.messages.send', idempotent: false };

const sb = useTestSandbox();
let cal: calendar_v3.Calendar;
let gmail: gmail_v1.Gmail;

beforeEach(async () => {
  await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
  await sb.createAccount({ email: BOB });
  cal = sb.google.calendar(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.calendarReadonly, SCOPES.gmailReadonly])));
  gmail = sb.google.gmail(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.gmailSend])));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const settings = (signal: AbortSignal) => cal.settings.get({ setting: 'timezone' }, { signal, retry: false });
const raw = Buffer.from(`From: ${ANA}\r\nTo: ${BOB}\r\nSubject: Hello\r\n\r\nHi Bob\r\n`).toString('base64url');
const send = (signal: AbortSignal) => gmail.users.messages.send({ userId: 'me', requestBody: { raw } }, { signal, retry: false });

async function fault(spec: Record<string, unknown>): Promise<void> {
  const res = await sb.control('POST', '/faults', spec);
  expect(res.status).toBe(201);
}

/** The request log from here on: `const log = await mark(); …; await log()` → statuses of `operation`. */
async function mark(operation = SETTINGS.operation): Promise<() => Promise<number[]>> {
  const since = (await sb.control('GET', '/requests')).body.next as number;
  return async () =>
    ((await sb.control('GET', `/requests?since=${since}`)).body.requests as Array<{ operation: string; status: number }>)
      .filter((r) => r.operation === operation)
      .map((r) => r.status);
}

function counted(upstream: Upstream) {
  let attempts = 0;
  return {
    get attempts() {
      return attempts;
    },
    call<T>(op: UpstreamOp, fn: (signal: AbortSignal) => Promise<T>, deadlineMs = CONFIG.toolDeadlineMs) {
      return upstream.call(op, fn, { deadline: deadlineSignal(deadlineMs), onAttempt: () => attempts++ });
    },
  };
}

const fresh = (overrides: Partial<UpstreamConfig> = {}) => counted(createUpstream({ ...CONFIG, ...overrides }, captureLogs('debug').logger));

describe('retries', () => {
  test('when Google answers 500 twice, then the third attempt succeeds and three requests were made', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'backendError', times: 2 });
    const log = await mark();
    const up = fresh();
    const result = await up.call(SETTINGS, settings);
    expect(result.ok && result.value.data.value).toBe('Europe/Madrid');
    expect(up.attempts).toBe(3);
    expect(await log()).toEqual([500, 500, 200]);
  });

  test('when Google answers 503 every time, then EXTERNAL_API_ERROR after maxRetries+1 attempts', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'unavailable' });
    const log = await mark();
    const up = fresh();
    const result = await up.call(SETTINGS, settings);
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 503 } }) });
    expect(up.attempts).toBe(CONFIG.maxRetries + 1);
    expect(await log()).toEqual([503, 503, 503, 503]);
  });

  test('when one answer is slower than the attempt timeout, then that attempt is abandoned and the retry succeeds', async () => {
    await fault({ operation: SETTINGS.operation, latency_ms: 800, times: 1 });
    const up = fresh();
    const started = Date.now();
    const result = await up.call(SETTINGS, settings);
    const elapsed = Date.now() - started;
    expect(result.ok).toBe(true);
    expect(up.attempts).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(CONFIG.attemptTimeoutMs - 10);
    expect(elapsed).toBeLessThan(800);
    await sleep(800 - elapsed + 100); // let the abandoned request finish inside the sandbox before the next reset
  });

  test('when Google stays slower than the deadline, then the call ends at the deadline with a timeout', async () => {
    await fault({ operation: SETTINGS.operation, latency_ms: 1000 });
    const up = fresh();
    const started = Date.now();
    const result = await up.call(SETTINGS, settings, 700);
    const elapsed = Date.now() - started;
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'timeout' } }) });
    expect(elapsed).toBeLessThan(900);
    expect(up.attempts).toBeGreaterThanOrEqual(2);
    await sleep(1200);
  });

  test('when the connection drops under an idempotent read, then it is retried and succeeds', async () => {
    await fault({ operation: SETTINGS.operation, drop: true, times: 1 });
    const log = await mark();
    const up = fresh();
    const result = await up.call(SETTINGS, settings);
    expect(result.ok).toBe(true);
    expect(up.attempts).toBe(2);
    expect(await log()).toEqual([0, 200]);
  });

  test('when the connection drops under a Gmail send, then it is NOT retried: EXTERNAL_API_ERROR, outcome unknown, one request', async () => {
    await fault({ operation: SEND.operation, drop: true, times: 1 });
    const log = await mark(SEND.operation);
    const up = fresh();
    const result = await up.call(SEND, send);
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: false, details: { reason: 'network', code: 'ECONNRESET', outcome: 'unknown' } }),
    });
    expect(up.attempts).toBe(1);
    expect(await log()).toEqual([0]);
    expect(JSON.stringify(result)).not.toMatch(/ya29|127\.0\.0\.1|\?/);
  });

  test('when the port refuses connections, then even a Gmail send is retried (the request never left), ending in a network error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const dead = new gmail_v1.Gmail({ auth: sb.google.withAccessToken(await sb.token(ANA, [SCOPES.gmailSend])), rootUrl: `http://127.0.0.1:${port}/` });
    const up = fresh();
    const result = await up.call(SEND, (signal) => dead.users.messages.send({ userId: 'me', requestBody: { raw } }, { signal, retry: false }));
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'network', code: 'ECONNREFUSED' } }) });
    expect(up.attempts).toBe(CONFIG.maxRetries + 1);
  });

  test('when a Gmail send succeeds, then it is sent once', async () => {
    const log = await mark(SEND.operation);
    const up = fresh();
    const result = await up.call(SEND, send);
    expect(result.ok && result.value.data.id).toEqual(expect.any(String));
    expect(await log()).toEqual([200]);
  });
});

describe('rate limits', () => {
  test('when Google answers 429 with Retry-After: 1, then the layer waits at least that long and succeeds', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'tooManyRequests', retry_after_s: 1, times: 1 });
    const log = await mark();
    const up = fresh();
    const started = Date.now();
    const result = await up.call(SETTINGS, settings);
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(up.attempts).toBe(2);
    expect(await log()).toEqual([429, 200]);
  });

  test('when Retry-After is longer than the deadline, then RATE_LIMITED at once with that wait, after one attempt', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'tooManyRequests', retry_after_s: 5, times: 1 });
    const log = await mark();
    const up = fresh();
    const started = Date.now();
    const result = await up.call(SETTINGS, settings);
    expect(Date.now() - started).toBeLessThan(500);
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'RATE_LIMITED', retryable: true, retryAfterS: 5, details: { scope: 'upstream', reason: 'rateLimitExceeded' } }),
    });
    expect(up.attempts).toBe(1);
    expect(await log()).toEqual([429]);
  });

  test('when Google answers 403 rateLimitExceeded, then it is retried and succeeds', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'rateLimitExceeded', times: 1 });
    const log = await mark();
    const up = fresh();
    expect((await up.call(SETTINGS, settings)).ok).toBe(true);
    expect(await log()).toEqual([403, 200]);
  });

  test('when a rate limit outlasts every retry, then RATE_LIMITED with a retryAfterS of at least 1', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'userRateLimitExceeded' });
    const up = fresh({ maxRetries: 1 });
    const result = await up.call(SETTINGS, settings);
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'RATE_LIMITED', details: { scope: 'upstream', reason: 'userRateLimitExceeded' } }) });
    expect(!result.ok && result.error.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(up.attempts).toBe(2);
  });
});

describe('answers that are not retried', () => {
  test('when the token lacks the scope, then INTEGRATION_PERMISSION_DENIED after one attempt', async () => {
    const log = await mark(SEND.operation);
    const readOnly = sb.google.gmail(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.gmailReadonly])));
    const up = fresh();
    const result = await up.call({ ...SEND, idempotent: true }, (signal) =>
      readOnly.users.messages.send({ userId: 'me', requestBody: { raw } }, { signal, retry: false }),
    );
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'INTEGRATION_PERMISSION_DENIED', retryable: false }) });
    expect(up.attempts).toBe(1);
    expect(await log()).toEqual([403]);
  });

  test('when the token is rejected, then INTEGRATION_EXPIRED (token_rejected) after one attempt', async () => {
    await sb.control('POST', `/accounts/${ANA}/revoke`);
    const up = fresh();
    const result = await up.call(SETTINGS, settings);
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'INTEGRATION_EXPIRED', details: { reason: 'token_rejected' } }) });
    expect(up.attempts).toBe(1);
  });

  test('when the event does not exist, then RESOURCE_NOT_FOUND after one attempt', async () => {
    const up = fresh();
    const result = await up.call({ ...SETTINGS, operation: 'calendar.events.get' }, (signal) =>
      cal.events.get({ calendarId: 'primary', eventId: 'doesnotexist' }, { signal, retry: false }),
    );
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'RESOURCE_NOT_FOUND', retryable: false }) });
    expect(up.attempts).toBe(1);
  });
});

describe('circuit breaker', () => {
  const BREAKER = { breakerFailures: 3, maxRetries: 0, breakerHalfOpenMs: 500 };

  test('when breakerFailures calls in a row fail with 5xx, then the next call fails fast without a request, and a success after halfOpen closes it', async () => {
    const logs = captureLogs('info');
    const upstream = createUpstream({ ...CONFIG, ...BREAKER }, logs.logger);
    const up = counted(upstream);
    await fault({ operation: SETTINGS.operation, preset: 'backendError' });
    for (let i = 0; i < BREAKER.breakerFailures; i++) {
      expect(await up.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { code: 'EXTERNAL_API_ERROR', details: { upstream_status: 500 } } });
    }
    expect(upstream.circuits()).toEqual({ google_calendar: 'open', google_gmail: 'closed' });

    const log = await mark();
    const attemptsBefore = up.attempts;
    const started = Date.now();
    const fast = await up.call(SETTINGS, settings);
    expect(Date.now() - started).toBeLessThan(50);
    expect(fast).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: true, retryAfterS: 1, details: { reason: 'circuit_open', integration: 'google_calendar' } }),
    });
    expect(up.attempts).toBe(attemptsBefore);
    expect(await log()).toEqual([]);
    // Gmail has its own circuit.
    expect((await up.call(SEND, send)).ok).toBe(true);

    await sb.control('DELETE', '/faults');
    await sleep(BREAKER.breakerHalfOpenMs + 50);
    expect((await up.call(SETTINGS, settings)).ok).toBe(true);
    expect(upstream.circuits().google_calendar).toBe('closed');
    expect(await log()).toEqual([200]);

    const changes = logs.entries().filter((e) => e.msg === 'circuit breaker state changed');
    expect(changes.map((e) => [e.level, e.integration, e.state])).toEqual([
      [40, 'google_calendar', 'open'],
      [40, 'google_calendar', 'half_open'],
      [30, 'google_calendar', 'closed'],
    ]);
  });

  test('when the half-open test call fails again, then the circuit reopens', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER }, captureLogs().logger);
    const up = counted(upstream);
    await fault({ operation: SETTINGS.operation, preset: 'unavailable' });
    for (let i = 0; i < BREAKER.breakerFailures; i++) await up.call(SETTINGS, settings);
    await sleep(BREAKER.breakerHalfOpenMs + 50);
    expect(await up.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { details: { upstream_status: 503 } } });
    expect(upstream.circuits().google_calendar).toBe('open');
    expect(await up.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { details: { reason: 'circuit_open' } } });
  });

  test('when Google answers 404 and 429 many times in a row, then the circuit stays closed and every call reaches Google', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER }, captureLogs().logger);
    const up = counted(upstream);
    const log = await mark('calendar.events.get');
    for (let i = 0; i < BREAKER.breakerFailures * 2; i++) {
      const result = await up.call({ ...SETTINGS, operation: 'calendar.events.get' }, (signal) =>
        cal.events.get({ calendarId: 'primary', eventId: `missing${i}` }, { signal, retry: false }),
      );
      expect(result).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND' } });
    }
    await fault({ operation: SETTINGS.operation, preset: 'tooManyRequests', retry_after_s: 30 });
    for (let i = 0; i < BREAKER.breakerFailures * 2; i++) {
      expect(await up.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED', retryAfterS: 30 } });
    }
    expect(upstream.circuits()).toEqual({ google_calendar: 'closed', google_gmail: 'closed' });
    expect(await log()).toHaveLength(BREAKER.breakerFailures * 2);
    expect(up.attempts).toBe(BREAKER.breakerFailures * 4);
  });
});
