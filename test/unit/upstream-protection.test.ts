import { ConfigError, loadConfig } from '../../src/config';
import { createCooldowns, isReadOperation, isSendOperation } from '../../src/protection/cooldowns';
import { MAX_WAITERS_PER_MAILBOX, createMailboxGate } from '../../src/protection/mailbox-gate';
import { gmailUnitCost } from '../../src/protection/mailbox-quota';
import { retryAfterFromMessage } from '../../src/providers/google/errors';
import { RATE_LIMIT_MIN_WAIT_MS, createBreakers, rateLimitWaitMs } from '../../src/resilience';
import { testEnv } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/** The pure parts of the Hub's upstream protections: circuits, cool-downs, the per-mailbox gate, Gmail's costs. */

function fakeClock(start = Date.parse('2026-03-01T10:00:00Z')) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('circuit breakers', () => {
  const SETTINGS = { failures: 3, halfOpenMs: 1000, windowMs: 10_000, minCalls: 10, minConnections: 3, failureRate: 0.5 };
  const setup = (overrides: Partial<typeof SETTINGS> = {}) => {
    const clock = fakeClock();
    const breakers = createBreakers({ ...SETTINGS, ...overrides }, captureLogs().logger, clock.now);
    const call = (connection: string, outcome: 'success' | 'failure' | 'none', integration = 'google_gmail') => {
      const admission = breakers.admit(integration, connection);
      if (admission.ok) breakers.record(admission.ticket, outcome);
      return admission;
    };
    return { clock, breakers, call };
  };

  test('when one connection fails `failures` calls in a row, then only its circuit opens, for halfOpenMs', () => {
    const { clock, breakers, call } = setup();
    for (let i = 0; i < 3; i++) expect(call('a', 'failure').ok).toBe(true);
    expect(call('a', 'success')).toEqual({ ok: false, scope: 'connection', openForMs: 1000 });
    expect(call('b', 'success').ok).toBe(true);
    expect(breakers.state('google_gmail')).toBe('closed');
    clock.advance(400);
    expect(call('a', 'success')).toEqual({ ok: false, scope: 'connection', openForMs: 600 });
  });

  test('when a success comes between failures, then the run starts over', () => {
    const { breakers, call } = setup();
    for (const outcome of ['failure', 'failure', 'success', 'failure', 'failure'] as const) call('a', outcome);
    expect(breakers.connectionState('google_gmail', 'a')).toBe('closed');
  });

  test('when calls record nothing (refused locally, no attempt), then they neither open nor close a circuit', () => {
    const { breakers, call } = setup();
    for (let i = 0; i < 10; i++) call('a', 'none');
    expect(breakers.connectionState('google_gmail', 'a')).toBe('closed');
  });

  test('when the half-open test call is in flight, then other calls of the connection still fail fast; its success closes the circuit', () => {
    const { clock, breakers, call } = setup();
    for (let i = 0; i < 3; i++) call('a', 'failure');
    clock.advance(1000);
    const probe = breakers.admit('google_gmail', 'a');
    expect(probe.ok).toBe(true);
    expect(breakers.admit('google_gmail', 'a').ok).toBe(false);
    if (probe.ok) breakers.record(probe.ticket, 'success');
    expect(breakers.connectionState('google_gmail', 'a')).toBe('closed');
    expect(call('a', 'success').ok).toBe(true);
  });

  test('when a half-open test call records nothing, then the next call becomes the test call', () => {
    const { clock, breakers, call } = setup();
    for (let i = 0; i < 3; i++) call('a', 'failure');
    clock.advance(1000);
    expect(call('a', 'none').ok).toBe(true);
    expect(breakers.connectionState('google_gmail', 'a')).toBe('half_open');
    expect(call('a', 'failure').ok).toBe(true);
    expect(breakers.connectionState('google_gmail', 'a')).toBe('open');
  });

  test('when failures come from fewer connections than minConnections, then the integration stays closed whatever the rate', () => {
    const { breakers, call } = setup({ failures: 1000 });
    for (let i = 0; i < 50; i++) call(i % 2 ? 'a' : 'b', 'failure');
    expect(breakers.state('google_gmail')).toBe('closed');
  });

  test('when fewer than minCalls calls were made, then the integration stays closed even if all failed', () => {
    const { breakers, call } = setup();
    for (let i = 0; i < 9; i++) call(`c${i}`, 'failure');
    expect(breakers.state('google_gmail')).toBe('closed');
    call('c9', 'failure');
    expect(breakers.state('google_gmail')).toBe('open');
  });

  test('when the failure rate across many connections reaches the threshold, then every connection fails fast, another integration is untouched', () => {
    const { breakers, call } = setup();
    for (let i = 0; i < 5; i++) call(`ok${i}`, 'success');
    for (let i = 0; i < 4; i++) call(`bad${i}`, 'failure');
    expect(breakers.state('google_gmail')).toBe('closed'); // 4 of 9
    call('bad4', 'failure'); // 5 of 10: 50 %
    expect(breakers.state('google_gmail')).toBe('open');
    expect(call('fresh', 'success')).toEqual({ ok: false, scope: 'integration', openForMs: 1000 });
    expect(call('fresh', 'success', 'google_calendar').ok).toBe(true);
  });

  test('when the failures are older than the window, then they no longer count', () => {
    const { clock, breakers, call } = setup();
    for (let i = 0; i < 9; i++) call(`c${i}`, 'failure');
    clock.advance(11_000);
    call('c9', 'failure');
    expect(breakers.state('google_gmail')).toBe('closed');
  });

  test('when the integration half-opens and its test call fails, then it reopens; when it succeeds, then it closes with a fresh window', () => {
    const { clock, breakers, call } = setup();
    for (let i = 0; i < 10; i++) call(`c${i}`, 'failure');
    clock.advance(1000);
    call('x', 'failure');
    expect(breakers.state('google_gmail')).toBe('open');
    clock.advance(1000);
    call('x', 'success');
    expect(breakers.state('google_gmail')).toBe('closed');
    call('y', 'failure');
    expect(breakers.state('google_gmail')).toBe('closed');
  });
});

describe('cool-downs', () => {
  test('when an account cools down for everything, then every operation of it is covered until the time, and no other account', () => {
    const clock = fakeClock();
    const cooldowns = createCooldowns(clock.now);
    cooldowns.start('google_gmail:ana', { until: clock.now() + 5000, scope: 'all', reason: 'rateLimitExceeded', limit: 'upstream' });
    expect(cooldowns.covering('google_gmail:ana', 'gmail.users.messages.get')?.reason).toBe('rateLimitExceeded');
    expect(cooldowns.covering('google_gmail:ben', 'gmail.users.messages.get')).toBeUndefined();
    clock.advance(5000);
    expect(cooldowns.covering('google_gmail:ana', 'gmail.users.messages.get')).toBeUndefined();
  });

  test('when the cool-down is for writes or sends, then reads go on', () => {
    const clock = fakeClock();
    const cooldowns = createCooldowns(clock.now);
    cooldowns.start('cal', { until: clock.now() + 5000, scope: 'writes', reason: 'quotaExceeded', limit: 'upstream_quota' });
    cooldowns.start('mail', { until: clock.now() + 5000, scope: 'send', reason: 'rateLimitExceeded', limit: 'upstream' });
    expect(cooldowns.covering('cal', 'calendar.events.insert')).toBeDefined();
    expect(cooldowns.covering('cal', 'calendar.events.delete')).toBeDefined();
    expect(cooldowns.covering('cal', 'calendar.freebusy.query')).toBeUndefined();
    expect(cooldowns.covering('cal', 'calendar.events.list')).toBeUndefined();
    expect(cooldowns.covering('mail', 'gmail.users.messages.send')).toBeDefined();
    expect(cooldowns.covering('mail', 'gmail.users.messages.modify')).toBeUndefined();
  });

  test('when a shorter cool-down of the same scope follows a longer one, then the longer one stands; a longer one replaces it', () => {
    const clock = fakeClock();
    const cooldowns = createCooldowns(clock.now);
    cooldowns.start('a', { until: clock.now() + 10_000, scope: 'all', reason: 'first', limit: 'upstream' });
    cooldowns.start('a', { until: clock.now() + 1000, scope: 'all', reason: 'second', limit: 'upstream' });
    expect(cooldowns.covering('a', 'x.get')?.reason).toBe('first');
    cooldowns.start('a', { until: clock.now() + 20_000, scope: 'all', reason: 'third', limit: 'upstream' });
    expect(cooldowns.covering('a', 'x.get')?.until).toBe(clock.now() + 20_000);
  });

  test('which operations read and which send', () => {
    for (const op of ['gmail.users.messages.get', 'gmail.users.messages.list', 'gmail.users.getProfile', 'calendar.freebusy.query', 'calendar.settings.get']) {
      expect(isReadOperation(op)).toBe(true);
    }
    for (const op of ['gmail.users.messages.send', 'gmail.users.messages.modify', 'calendar.events.insert', 'calendar.events.patch']) {
      expect(isReadOperation(op)).toBe(false);
    }
    expect(isSendOperation('gmail.users.messages.send')).toBe(true);
    expect(isSendOperation('gmail.users.messages.modify')).toBe(false);
  });
});

describe('the per-mailbox gate', () => {
  const never = new AbortController().signal;

  test('when a mailbox has maxInFlight requests in flight, then the next waits; a release lets it through', async () => {
    const gate = createMailboxGate(2);
    const a = await gate.acquire('m', 't1', never);
    const b = await gate.acquire('m', 't1', never);
    let third = false;
    const pending = gate.acquire('m', 't1', never).then((r) => ((third = true), r));
    await Promise.resolve();
    expect(third).toBe(false);
    expect(gate.inFlight('m')).toBe(2);
    expect((await gate.acquire('other', 't1', never)).ok).toBe(true); // another mailbox is not held up
    if (a.ok) a.release();
    const c = await pending;
    expect(c.ok).toBe(true);
    if (b.ok) b.release();
    if (c.ok) c.release();
    expect(gate.inFlight('m')).toBe(0);
  });

  test('when one customer queued a burst and another customer then asks, then freed slots alternate between them', async () => {
    const gate = createMailboxGate(1);
    const first = await gate.acquire('m', 'burst', never);
    const granted: string[] = [];
    const releases = new Map<string, () => void>();
    const wait = (tenant: string, name: string) =>
      void gate.acquire('m', tenant, never).then((r) => {
        granted.push(name);
        if (r.ok) releases.set(name, r.release);
      });
    for (let i = 0; i < 4; i++) wait('burst', `burst${i}`);
    wait('other', 'other');
    let release = first.ok ? first.release : () => undefined;
    for (let i = 0; i < 5; i++) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
      release = releases.get(granted[granted.length - 1]!)!;
    }
    expect(granted).toEqual(['burst0', 'other', 'burst1', 'burst2', 'burst3']);
  });

  test('when the deadline fires while waiting, then the wait ends with "deadline" and the queue forgets it', async () => {
    const gate = createMailboxGate(1);
    const held = await gate.acquire('m', 't', never);
    const controller = new AbortController();
    const waiting = gate.acquire('m', 't', controller.signal);
    controller.abort();
    expect(await waiting).toEqual({ ok: false, reason: 'deadline' });
    if (held.ok) held.release();
    expect(gate.inFlight('m')).toBe(0);
    expect((await gate.acquire('m', 't', never)).ok).toBe(true);
  });

  test('when too many requests already wait for a mailbox, then the next is refused at once', async () => {
    const gate = createMailboxGate(1);
    await gate.acquire('m', 't', never);
    for (let i = 0; i < MAX_WAITERS_PER_MAILBOX; i++) void gate.acquire('m', `t${i % 7}`, new AbortController().signal);
    expect(await gate.acquire('m', 'late', never)).toEqual({ ok: false, reason: 'queue_full' });
  });
});

describe("Gmail's retry times and costs", () => {
  const NOW = Date.parse('2026-03-01T10:00:00Z');
  test('when the message names a time, then the wait until it (0 if past, capped at a day); otherwise undefined', () => {
    expect(retryAfterFromMessage('User-rate limit exceeded.  Retry after 2026-03-01T10:15:00.000Z', NOW)).toBe(900_000);
    expect(retryAfterFromMessage('User-rate limit exceeded.  Retry after 2026-03-01T10:00:05Z (Mail sending)', NOW)).toBe(5000);
    expect(retryAfterFromMessage('Retry after 2026-03-01T09:00:00Z', NOW)).toBe(0);
    expect(retryAfterFromMessage('Retry after 2099-01-01T00:00:00Z', NOW)).toBe(24 * 3600_000);
    for (const m of [
      undefined,
      '',
      'Rate Limit Exceeded',
      'Retry after soon',
      'Retry after 2026-13-45T99:99:99Z',
      `${'x'.repeat(2000)} Retry after 2026-03-01T10:15:00Z`,
    ]) {
      expect(retryAfterFromMessage(m, NOW)).toBeUndefined();
    }
  });

  test("when a rate limit is retried, then the wait is at least one second, or Google's own when longer", () => {
    const settings = { retryBaseMs: 10, retryMaxMs: 50 };
    for (let i = 0; i < 5; i++) expect(rateLimitWaitMs(i, undefined, settings)).toBeGreaterThanOrEqual(RATE_LIMIT_MIN_WAIT_MS);
    expect(rateLimitWaitMs(0, 5000, settings)).toBe(5000);
  });

  test("when a method is priced, then the quota page's units, configured overrides first, 5 for anything unlisted", () => {
    expect(gmailUnitCost('gmail.users.messages.get')).toBe(5);
    expect(gmailUnitCost('gmail.users.messages.send')).toBe(100);
    expect(gmailUnitCost('gmail.users.getProfile')).toBe(1);
    expect(gmailUnitCost('gmail.users.threads.get')).toBe(10);
    expect(gmailUnitCost('gmail.users.settings.getVacation')).toBe(5);
    expect(gmailUnitCost('gmail.users.messages.get', { 'messages.get': 7 })).toBe(7);
  });

  test('when the costs are configured, then method=units pairs are read and anything else is refused by name', () => {
    expect(loadConfig(testEnv({ HUB_GMAIL_QUOTA_COSTS: 'messages.get=6, messages.send=120' })).upstream.gmail.quotaCosts).toEqual({
      'messages.get': 6,
      'messages.send': 120,
    });
    expect(() => loadConfig(testEnv({ HUB_GMAIL_QUOTA_COSTS: 'messages.get=0,nope' }))).toThrow(ConfigError);
    const defaults = loadConfig(testEnv()).upstream;
    expect(defaults.gmail).toEqual({ maxInFlight: 10, quotaUnits: 3000, quotaWindowS: 60, quotaCosts: {} });
    expect(defaults.globalBreaker).toEqual({ windowMs: 60_000, minCalls: 50, minConnections: 5, failureRate: 0.5 });
    expect(defaults.calendarQuotaCooldownMs).toBe(3600_000);
  });
});
