import type { calendar_v3 } from '@googleapis/calendar';
import { gmail_v1 } from '@googleapis/gmail';
import { createServer } from 'node:net';
import type { UpstreamConfig } from '../../src/config';
import { createUpstream } from '../../src/providers/google/resilience';
import { type Tenant, type Upstream, type UpstreamOp, deadlineSignal } from '../../src/resilience';
import { testConfig } from '../helpers/env';
import { captureLogs } from '../helpers/logs';
import { SCOPES, useTestSandbox } from '../helpers/sandbox';

/**
 * The upstream layer against the real Google sandbox, through googleapis: faults injected with the control API,
 * attempts counted both by `onAttempt` and by the sandbox's request log (status 0 = dropped connection).
 */

const ANA = 'ana@acme.example';
const BOB = 'bob@acme.example';
const CONFIG: UpstreamConfig = {
  ...testConfig().upstream,
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
const PROFILE: UpstreamOp = { integration: 'google_gmail', operation: 'gmail.users.getProfile', idempotent: true };

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
/** Ana's gmail.users.getProfile, with a read-only token. */
async function profile() {
  const reader = sb.google.gmail(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.gmailReadonly])));
  return (signal: AbortSignal) => reader.users.getProfile({ userId: 'me' }, { signal, retry: false });
}

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
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 503, reason: 'backendError' } }),
    });
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
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { reason: 'network', code: 'ECONNREFUSED' } }),
    });
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

  test("when Google answers 403 rateLimitExceeded, then it is retried after at least one second (Google's advice) and succeeds", async () => {
    await fault({ operation: SETTINGS.operation, preset: 'rateLimitExceeded', times: 1 });
    const log = await mark();
    const up = fresh();
    const started = Date.now();
    expect((await up.call(SETTINGS, settings)).ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(await log()).toEqual([403, 200]);
  });

  test('when Gmail names in its message a retry time within the deadline, then the layer waits until then and succeeds', async () => {
    const log = await mark('gmail.users.getProfile');
    await fault({ operation: 'gmail.users.getProfile', preset: 'userRateLimitRetryAfter', retry_after_s: 2, times: 1 });
    const up = fresh();
    const started = Date.now();
    const result = await up.call(PROFILE, await profile());
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500); // the message's time (2 s, rounded by the ISO clock) — not the 20 ms backoff
    expect(await log()).toEqual([403, 200]);
  });

  test('when Gmail names a retry time beyond the deadline, then RATE_LIMITED at once with that wait, after one attempt', async () => {
    await fault({ operation: 'gmail.users.getProfile', preset: 'userRateLimitRetryAfter', retry_after_s: 900 });
    const up = fresh();
    const started = Date.now();
    const result = await up.call(PROFILE, await profile());
    expect(Date.now() - started).toBeLessThan(500);
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'RATE_LIMITED', details: { scope: 'upstream', reason: 'rateLimitExceeded' } }),
    });
    expect(!result.ok && result.error.retryAfterS).toBeGreaterThanOrEqual(899);
    expect(!result.ok && result.error.retryAfterS).toBeLessThanOrEqual(900);
    expect(up.attempts).toBe(1);
  });

  test('when a rate limit outlasts every retry, then RATE_LIMITED with a retryAfterS of at least 1', async () => {
    await fault({ operation: SETTINGS.operation, preset: 'userRateLimitExceeded' });
    const up = fresh({ maxRetries: 1 });
    const result = await up.call(SETTINGS, settings);
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'RATE_LIMITED', details: { scope: 'upstream', reason: 'userRateLimitExceeded' } }),
    });
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

describe('circuit breakers', () => {
  const BREAKER = {
    breakerFailures: 3,
    maxRetries: 2,
    breakerHalfOpenMs: 500,
    globalBreaker: { windowMs: 60_000, minCalls: 6, minConnections: 3, failureRate: 0.5 },
  };
  const tenant = (n: number): Tenant => ({ connectionId: `conn-${n}`, account: null, customerId: `customer-${n}` });
  const withTenant = (upstream: Upstream, who: Tenant) => ({
    call: <T>(op: UpstreamOp, fn: (signal: AbortSignal) => Promise<T>) =>
      upstream.call(op, fn, { deadline: deadlineSignal(CONFIG.toolDeadlineMs), tenant: who }),
  });
  const EVENT_GET: UpstreamOp = { ...SETTINGS, operation: 'calendar.events.get' };
  const getEvent = (id: string) => (signal: AbortSignal) => cal.events.get({ calendarId: 'primary', eventId: id }, { signal, retry: false });

  test("when one connection's calls keep failing with 500, then only its circuit opens (after breakerFailures calls, retries counted once) and another connection still reaches Google", async () => {
    const logs = captureLogs('info');
    const upstream = createUpstream({ ...CONFIG, ...BREAKER }, logs.logger);
    const ana = withTenant(upstream, tenant(1));
    const ben = withTenant(upstream, tenant(2));
    await fault({ path: '/calendar/v3/calendars/primary/events/poison', preset: 'backendError' });
    const log = await mark(EVENT_GET.operation);
    for (let i = 0; i < BREAKER.breakerFailures; i++) {
      expect(upstream.connectionCircuit('google_calendar', 'conn-1')).toBe('closed');
      expect(await ana.call(EVENT_GET, getEvent('poison'))).toMatchObject({
        ok: false,
        error: { code: 'EXTERNAL_API_ERROR', details: { upstream_status: 500 } },
      });
    }
    expect(await log()).toHaveLength(BREAKER.breakerFailures * (BREAKER.maxRetries + 1)); // 9 attempts, 3 calls
    expect(upstream.connectionCircuit('google_calendar', 'conn-1')).toBe('open');

    const before = (await log()).length;
    const fast = await ana.call(SETTINGS, settings);
    expect(fast).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'EXTERNAL_API_ERROR',
        retryable: true,
        retryAfterS: 1,
        details: { reason: 'circuit_open', scope: 'connection', integration: 'google_calendar' },
      }),
    });
    expect((await log()).length).toBe(before);
    // Another customer's connection, the integration as a whole: untouched.
    expect((await ben.call(SETTINGS, settings)).ok).toBe(true);
    expect(upstream.circuits()).toEqual({ google_calendar: 'closed', google_gmail: 'closed' });

    await sleep(BREAKER.breakerHalfOpenMs + 50);
    expect((await ana.call(SETTINGS, settings)).ok).toBe(true);
    expect(upstream.connectionCircuit('google_calendar', 'conn-1')).toBe('closed');
    const changes = logs.entries().filter((e) => e.msg === 'circuit breaker state changed');
    expect(changes.map((e) => [e.level, e.scope, e.connection_id, e.state])).toEqual([
      [40, 'connection', 'conn-1', 'open'],
      [40, 'connection', 'conn-1', 'half_open'],
      [30, 'connection', 'conn-1', 'closed'],
    ]);
  });

  test('when a call fails twice and its last retry succeeds, then it counts as a success: no run of failures builds up', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER, breakerFailures: 2 }, captureLogs().logger);
    const ana = withTenant(upstream, tenant(1));
    for (let i = 0; i < 3; i++) {
      await fault({ operation: SETTINGS.operation, preset: 'backendError', times: 2 });
      expect((await ana.call(SETTINGS, settings)).ok).toBe(true);
    }
    expect(upstream.connectionCircuit('google_calendar', 'conn-1')).toBe('closed');
  });

  test('when the half-open test call of a connection fails again, then its circuit reopens', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER, maxRetries: 0 }, captureLogs().logger);
    const ana = withTenant(upstream, tenant(1));
    await fault({ operation: SETTINGS.operation, preset: 'unavailable' });
    for (let i = 0; i < BREAKER.breakerFailures; i++) await ana.call(SETTINGS, settings);
    await sleep(BREAKER.breakerHalfOpenMs + 50);
    expect(await ana.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { details: { upstream_status: 503 } } });
    expect(upstream.connectionCircuit('google_calendar', 'conn-1')).toBe('open');
    expect(await ana.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { details: { reason: 'circuit_open', scope: 'connection' } } });
  });

  test('when one connection fails over and over, then the integration-wide circuit stays closed however many calls it makes', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER, breakerFailures: 1000, maxRetries: 0 }, captureLogs().logger);
    const ana = withTenant(upstream, tenant(1));
    await fault({ operation: SETTINGS.operation, preset: 'backendError' });
    for (let i = 0; i < BREAKER.globalBreaker.minCalls * 3; i++) await ana.call(SETTINGS, settings);
    expect(upstream.circuits().google_calendar).toBe('closed');
  });

  test('when Google fails for many connections at once, then the integration-wide circuit opens: every connection fails fast, Gmail is untouched, and a success after halfOpen closes it', async () => {
    const logs = captureLogs('info');
    const upstream = createUpstream({ ...CONFIG, ...BREAKER, maxRetries: 0 }, logs.logger);
    await fault({ operation: SETTINGS.operation, preset: 'backendError' });
    // Six connections, one failed call each: the minimum volume, all failed, from ≥ 3 connections.
    for (let n = 1; n <= BREAKER.globalBreaker.minCalls; n++) {
      expect(await withTenant(upstream, tenant(n)).call(SETTINGS, settings)).toMatchObject({ ok: false, error: { details: { upstream_status: 500 } } });
    }
    expect(upstream.circuits()).toEqual({ google_calendar: 'open', google_gmail: 'closed' });

    const log = await mark();
    const fresh = withTenant(upstream, tenant(99));
    expect(await fresh.call(SETTINGS, settings)).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'EXTERNAL_API_ERROR', details: { reason: 'circuit_open', scope: 'integration', integration: 'google_calendar' } }),
    });
    expect(await log()).toEqual([]);
    expect((await withTenant(upstream, tenant(99)).call(SEND, send)).ok).toBe(true);

    await sb.control('DELETE', '/faults');
    await sleep(BREAKER.breakerHalfOpenMs + 50);
    expect((await fresh.call(SETTINGS, settings)).ok).toBe(true);
    expect(upstream.circuits().google_calendar).toBe('closed');
    const changes = logs.entries().filter((e) => e.msg === 'circuit breaker state changed' && e.scope === 'integration');
    expect(changes.map((e) => [e.level, e.integration, e.state])).toEqual([
      [40, 'google_calendar', 'open'],
      [40, 'google_calendar', 'half_open'],
      [30, 'google_calendar', 'closed'],
    ]);
  });

  test('when 30 % of the calls across many connections fail, then the integration-wide circuit stays closed', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER, maxRetries: 0 }, captureLogs().logger);
    for (let n = 1; n <= 20; n++) {
      const failing = n % 10 < 3; // 6 of 20 connections, 30 %
      if (failing) await fault({ operation: SETTINGS.operation, preset: 'backendError', times: 1 });
      await withTenant(upstream, tenant(n)).call(SETTINGS, settings);
    }
    expect(upstream.circuits().google_calendar).toBe('closed');
  });

  test('when Google answers 404 and 429 many times in a row, then no circuit opens and every call reaches Google', async () => {
    const upstream = createUpstream({ ...CONFIG, ...BREAKER, maxRetries: 0 }, captureLogs().logger);
    const up = counted(upstream);
    const log = await mark('calendar.events.get');
    const calls = BREAKER.globalBreaker.minCalls * 2;
    for (let i = 0; i < calls; i++) {
      const result = await up.call(EVENT_GET, getEvent(`missing${i}`));
      expect(result).toMatchObject({ ok: false, error: { code: 'RESOURCE_NOT_FOUND' } });
    }
    await fault({ operation: SETTINGS.operation, preset: 'tooManyRequests', retry_after_s: 30 });
    for (let i = 0; i < calls; i++) {
      expect(await up.call(SETTINGS, settings)).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED', retryAfterS: 30 } });
    }
    expect(upstream.circuits()).toEqual({ google_calendar: 'closed', google_gmail: 'closed' });
    expect(await log()).toHaveLength(calls);
    expect(up.attempts).toBe(calls * 2);
  });
});
