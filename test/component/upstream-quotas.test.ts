import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { openRedis } from '../../src/store/redis';
import { type Connected, connectToSandbox, runTool, sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { services } from '../helpers/env';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * Google's usage limits, through the Hub against the sandbox: Calendar's quotaExceeded and Gmail's limits that
 * name when they lift become RATE_LIMITED and a local cool-down of the account; Gmail's unit budget is charged
 * per mailbox (shared by its customers, and by replicas through Redis) before Google is called; and the
 * per-mailbox in-flight cap keeps Gmail's concurrency limit from ever answering, fairly across customers.
 * Every test uses mailboxes of its own: cool-downs and budgets outlive the sandbox's reset between tests.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_CALENDAR_QUOTA_COOLDOWN_S: '7200' }) });
});
afterAll(() => hub.close());
afterEach(() => sb.control('DELETE', '/faults'));

const EVENT = { title: 'Sync', start: '2027-01-18T14:00:00-05:00', end: '2027-01-18T15:00:00-05:00' };
const fresh = (name: string) => `${name}-${randomUUID().slice(0, 8)}@acme.example`;
const note = (to: string, i: number) => ({ from: 'john@example.com', to: [to], subject: `Report ${i}`, text: `Body ${i}` });

async function mailbox(on: TestHub, messages = 3, email = fresh('mail')): Promise<Connected> {
  if (!sb.world.accounts.has(email)) await sb.createAccount({ email, messages: Array.from({ length: messages }, (_, i) => note(email, i)) });
  return connectToSandbox(on, sb, { email, integration: 'google_gmail' });
}

async function calendar(on: TestHub): Promise<Connected> {
  const email = fresh('cal');
  await sb.createAccount({ email, time_zone: 'America/New_York' });
  return connectToSandbox(on, sb, { email, integration: 'google_calendar' });
}

const expectLocalRefusal = (res: { status: number; body: any }, scope: string) => {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { scope, cooldown_until: expect.any(String) } });
  expect(res.body.metadata.api_calls).toBe(0);
};

describe('Calendar usage limits exceeded (403 quotaExceeded)', () => {
  test("when Google says the account's calendar is over its usage limits, then RATE_LIMITED upstream_quota, not retried, and the account's writes are answered locally while reads go on", async () => {
    const who = await calendar(hub);
    const other = await calendar(hub);
    await sb.control('POST', '/faults', { operation: 'calendar.events.insert', preset: 'quotaExceeded', times: 1 });
    const requests = await sandboxRequestsFrom(sb);
    const res = await runTool(hub, who, 'calendar_create_event', EVENT);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      retry_after_s: 7200,
      details: { scope: 'upstream_quota', reason: 'quotaExceeded' },
    });
    expect(res.headers['retry-after']).toBe('7200');
    expect((await requests()).filter((r) => r.operation === 'calendar.events.insert')).toHaveLength(1);

    const since = await sandboxRequestsFrom(sb);
    const write = await runTool(hub, who, 'calendar_delete_event', { event_id: 'abc123' });
    expectLocalRefusal(write, 'upstream_quota');
    expect(write.body.error.details.reason).toBe('quotaExceeded');
    expect(write.body.error.retry_after_s).toBeGreaterThan(7100);
    expect(await since()).toEqual([]);
    const read = await runTool(hub, who, 'calendar_get_availability', { start_date: '2027-01-18', end_date: '2027-01-19', timezone: 'America/New_York' });
    expect(read.status).toBe(200);
    expect((await runTool(hub, other, 'calendar_create_event', EVENT)).status).toBe(200);
  });
});

describe('Gmail rate limits that name when they lift', () => {
  test('when the time lies beyond the deadline, then RATE_LIMITED at once with that wait (no retry), and the mailbox cools down locally until then', async () => {
    const ana = await mailbox(hub);
    const ben = await mailbox(hub);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.list', preset: 'userRateLimitRetryAfter', retry_after_s: 600, times: 1 });
    const started = Date.now();
    const res = await runTool(hub, ana, 'email_search', { query: '' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { scope: 'upstream', reason: 'rateLimitExceeded' } });
    expect(res.body.error.retry_after_s).toBeGreaterThanOrEqual(598);
    expect(res.body.error.retry_after_s).toBeLessThanOrEqual(600);
    expect(res.body.metadata.api_calls).toBe(1);

    const since = await sandboxRequestsFrom(sb);
    const again = await runTool(hub, ana, 'email_read', { message_id: '18c0ffee00000000' });
    expectLocalRefusal(again, 'upstream');
    expect(await since()).toEqual([]);
    expect((await runTool(hub, ben, 'email_search', { query: '' })).status).toBe(200);
  });

  test('when the time lies within the deadline, then the Hub waits until then and the call succeeds', async () => {
    const ana = await mailbox(hub, 1);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.list', preset: 'userRateLimitRetryAfter', retry_after_s: 2, times: 1 });
    const started = Date.now();
    const res = await runTool(hub, ana, 'email_search', { query: '' });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // Google's time (≈2 s, to the second), not the 10 ms backoff
    expect(res.body.metadata.api_calls).toBe(3); // list refused, list, one get
  });

  test('when Gmail answers 429 without a time, then the first retry still waits at least a second, as Google asks', async () => {
    const ana = await mailbox(hub, 1);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.list', preset: 'tooManyRequests', times: 1 });
    const started = Date.now();
    const res = await runTool(hub, ana, 'email_search', { query: '' });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  test('when the mailbox hit its sending limit, then sends are answered locally until it lifts and reading goes on', async () => {
    const ana = await mailbox(hub, 1);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', preset: 'mailSendingLimit', retry_after_s: 3600, times: 1 });
    const send = { to: ['john@example.com'], subject: 'Hello', body: 'Hi' };
    const first = await runTool(hub, ana, 'email_send', send);
    expect(first.status).toBe(429);
    expect(first.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { scope: 'upstream', reason: 'rateLimitExceeded' } });
    expect(first.body.error.retry_after_s).toBeGreaterThan(3590);
    const second = await runTool(hub, ana, 'email_send', send);
    expectLocalRefusal(second, 'upstream');
    expect((await runTool(hub, ana, 'email_search', { query: '' })).status).toBe(200);
  });
});

describe("the mailbox's Gmail unit budget", () => {
  test('when a mailbox spent its units, then every customer of that mailbox gets RATE_LIMITED upstream_quota before Google is called; another mailbox is served', async () => {
    const own = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_GMAIL_QUOTA_UNITS: '20' }) });
    try {
      const shared = fresh('shared');
      const first = await mailbox(own, 3, shared);
      const second = await mailbox(own, 3, shared); // another customer, the same Google account
      const elsewhere = await mailbox(own);
      expect((await runTool(own, first, 'email_search', { query: '', max_results: 3 })).status).toBe(200); // 5 + 3 × 5 = 20 units
      const since = await sandboxRequestsFrom(sb);
      const refused = await runTool(own, second, 'email_search', { query: '' });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'RATE_LIMITED',
        retryable: true,
        details: { scope: 'upstream_quota', reason: 'mailbox_quota', limit: 20, window_s: 60, cost: 5 },
      });
      expect(refused.body.error.retry_after_s).toBeGreaterThanOrEqual(1);
      expect(refused.body.error.retry_after_s).toBeLessThanOrEqual(60);
      expect(refused.body.metadata.api_calls).toBe(0);
      expect(await since()).toEqual([]);
      expect((await runTool(own, elsewhere, 'email_search', { query: '', max_results: 3 })).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  describe('across replicas', () => {
    const { redisUrl } = services();
    const redisTest = redisUrl ? test : test.skip;
    const redis: Redis[] = [];
    afterAll(() => {
      for (const r of redis) r.disconnect(); // quit() would wait on the unreachable one, which reconnects forever
    });

    redisTest("when two replicas share Redis, then the budget is the mailbox's, whichever replica spends it", async () => {
      const env = sandboxHubEnv(sb, { HUB_GMAIL_QUOTA_UNITS: '20' });
      redis.push(await openRedis(redisUrl!, captureLogs().logger), await openRedis(redisUrl!, captureLogs().logger));
      const a = await buildTestHub({ env, redis: redis[0]! });
      const b = await buildTestHub({ env, redis: redis[1]! });
      try {
        const shared = fresh('replicas');
        expect((await runTool(a, await mailbox(a, 3, shared), 'email_search', { query: '', max_results: 3 })).status).toBe(200);
        const refused = await runTool(b, await mailbox(b, 3, shared), 'email_search', { query: '' });
        expect(refused.status).toBe(429);
        expect(refused.body.error.details).toMatchObject({ scope: 'upstream_quota', reason: 'mailbox_quota' });
      } finally {
        await a.close();
        await b.close();
      }
    });

    test('when Redis is unreachable, then each replica keeps its share of the budget and no call waits on Redis', async () => {
      const down = await openRedis('redis://127.0.0.1:1', captureLogs().logger, 50);
      redis.push(down);
      const own = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_GMAIL_QUOTA_UNITS: '20', HUB_REPLICAS: '2' }), redis: down });
      try {
        const who = await mailbox(own, 3);
        const started = Date.now();
        expect((await runTool(own, who, 'email_search', { query: '', max_results: 1 })).status).toBe(200); // 10 units: this replica's half
        expect(Date.now() - started).toBeLessThan(1500);
        const refused = await runTool(own, who, 'email_search', { query: '', max_results: 1 });
        expect(refused.status).toBe(429);
        expect(refused.body.error.details).toMatchObject({ scope: 'upstream_quota', reason: 'mailbox_quota' });
      } finally {
        await own.close();
      }
    });
  });
});

describe('the per-mailbox in-flight cap', () => {
  const SLOW_GETS = { operation: 'gmail.users.messages.get', latency_ms: 150 };

  test("when a search fetches more messages than Gmail lets one mailbox run at once, then the cap keeps it under Gmail's limit: no 429, every message", async () => {
    const own = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_GMAIL_MAX_IN_FLIGHT: '2' }) });
    try {
      await sb.control('PUT', '/quotas', { gmail_max_concurrent_per_user: 2 });
      await sb.control('POST', '/faults', SLOW_GETS);
      const who = await mailbox(own, 8);
      const requests = await sandboxRequestsFrom(sb);
      const started = Date.now();
      const res = await runTool(own, who, 'email_search', { query: '', max_results: 8 });
      expect(res.status).toBe(200);
      expect(res.body.result.total_results).toBe(8);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 150 - 20); // four waves of two
      expect((await requests()).map((r) => r.status)).toEqual(Array(9).fill(200));
    } finally {
      await own.close();
    }
  });

  test('when the cap is above Gmail\'s limit, then Gmail answers 429 "Too many concurrent requests" (the limit the cap exists for)', async () => {
    const own = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_GMAIL_MAX_IN_FLIGHT: '6', HUB_GOOGLE_MAX_RETRIES: '0' }) });
    try {
      await sb.control('PUT', '/quotas', { gmail_max_concurrent_per_user: 2 });
      await sb.control('POST', '/faults', SLOW_GETS);
      const who = await mailbox(own, 6);
      const requests = await sandboxRequestsFrom(sb);
      const res = await runTool(own, who, 'email_search', { query: '', max_results: 6 });
      expect(res.status).toBe(429);
      expect((await requests()).filter((r) => r.status === 429).length).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });

  test("when one customer's search fills the mailbox's slots, then another customer of the same mailbox gets its turn and is not starved", async () => {
    const own = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_GMAIL_MAX_IN_FLIGHT: '2' }) });
    try {
      await sb.control('POST', '/faults', { operation: 'gmail.users.messages.get', latency_ms: 200 });
      const shared = fresh('busy');
      const burst = await mailbox(own, 12, shared);
      const patient = await mailbox(own, 12, shared);
      const someId = [...sb.world.gmail.mailboxes.get(shared)!.messages.keys()][0]!;
      const t0 = Date.now();
      const search = runTool(own, burst, 'email_search', { query: '', max_results: 12 }).then((r) => ({ r, at: Date.now() - t0 }));
      await new Promise((resolve) => setTimeout(resolve, 100)); // the search's gets are queued by now
      const read = await runTool(own, patient, 'email_read', { message_id: someId }).then((r) => ({ r, at: Date.now() - t0 }));
      const done = await search;
      expect(read.r.status).toBe(200);
      expect(done.r.status).toBe(200);
      // Twelve gets two at a time take six waves (≥ 1.2 s); the read waits for one slot, not behind the burst.
      expect(read.at).toBeLessThan(done.at);
      expect(read.at - 100).toBeLessThan((done.at * 2) / 3);
    } finally {
      await own.close();
    }
  });
});
