import type { Redis } from 'ioredis';
import { openRedis } from '../../src/store/redis';
import { runTool } from '../helpers/connected';
import { services } from '../helpers/env';
import { type TestHub, buildTestHub, microsoftGraphEnv } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { connectToMicrosoft } from '../helpers/microsoft-connected';
import { type GraphMeter, type Mailbox, connectNewMailbox, graphAnswersFor, mailboxLimitEnv, meterGraph, throttleSandboxAt } from '../helpers/outlook-limits';

/**
 * Outlook's limits per app and mailbox — a budget of requests per window and 4 in flight, calendar and mail
 * together — enforced by the Hub before Graph would answer 429, as an agent meets them over HTTP. The sandbox
 * throttles at exactly the Hub's limits (a sliding window, 429 ApplicationThrottled beyond), so a request the Hub
 * let through too many would show there as a 429; a meter in front of it counts each mailbox's requests in flight.
 * Budgets are small and windows short through the configuration (HUB_OUTLOOK_QUOTA_REQUESTS, _WINDOW_S).
 */

let ms: MicrosoftWorld;
let meter: GraphMeter;
const redisUrl = services().redisUrl;
const opened: { hubs: TestHub[]; redis: Redis[] } = { hubs: [], redis: [] };

beforeAll(async () => {
  ms = await startMicrosoftWorld();
  meter = await meterGraph(ms);
});
afterAll(async () => {
  for (const hub of opened.hubs) await hub.close();
  for (const redis of opened.redis) await redis.quit();
  await meter?.close();
  await ms?.close();
});
afterEach(() => ms.control('DELETE', '/faults'));

/** A Hub whose Outlook budget is `requests` per `windowS`, counted in this process or in Redis. */
async function hubWith(requests: number, windowS: number, store: 'memory' | 'redis' = 'memory'): Promise<TestHub> {
  const redis = store === 'redis' ? await openRedis(redisUrl!, captureLogs().logger) : undefined;
  if (redis) opened.redis.push(redis);
  const hub = await buildTestHub({
    env: { ...microsoftGraphEnv(meter.graphUrl), ...mailboxLimitEnv(requests, windowS) },
    ...(redis ? { redis } : {}),
  });
  opened.hubs.push(hub);
  return hub;
}

const calendarCall = (hub: TestHub, box: Mailbox) => runTool(hub, { customerId: box.customerId, userId: null }, 'calendar_list_calendars', {});
const mailCall = (hub: TestHub, box: Mailbox) =>
  runTool(hub, { customerId: box.customerId, userId: null }, 'email_search', { query: 'in:inbox', max_results: 5 });
const timed = async <T>(p: Promise<T>): Promise<{ value: T; at: number }> => {
  const value = await p;
  return { value, at: Date.now() };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The budget was kept where the suite says: no charge fell back from Redis to this process. */
const expectNoFallback = (hub: TestHub) => expect(hub.logs.text()).not.toContain('could not be charged in Redis');

describe('Outlook mailbox concurrency', () => {
  const BUDGET = 40;
  const LATENCY_MS = 500;
  let hub: TestHub;
  beforeAll(async () => {
    hub = await hubWith(BUDGET, 600);
  });

  test("when ten calendar and mail calls hit one mailbox at once, then the extra ones wait for one of its 4 slots and all succeed without a Graph 429, and another customer's mailbox does not wait behind them", async () => {
    await throttleSandboxAt(ms, BUDGET, 600);
    const busy = await connectNewMailbox(hub, ms, 'busy');
    const other = await connectNewMailbox(hub, ms, 'other');
    // Graph takes its time on each request, so the calls overlap at the sandbox unless the Hub holds them back.
    await ms.control('POST', '/faults', { operation: 'calendars.list', latency_ms: LATENCY_MS });
    await ms.control('POST', '/faults', { operation: 'messages.list', latency_ms: LATENCY_MS });

    const started = Date.now();
    const burst = Array.from({ length: 10 }, (_, i) => timed(i % 2 === 0 ? calendarCall(hub, busy) : mailCall(hub, busy)));
    const elsewhere = await timed(calendarCall(hub, other));
    const answers = await Promise.all(burst);

    for (const { value: res } of answers) {
      expect(res.status).toBe(200);
      expect(res.body.metadata.api_calls).toBe(1); // one request each: none was refused by Graph and retried
    }
    const seen = await graphAnswersFor(ms, busy.upn);
    expect(seen).toHaveLength(10);
    expect(seen.filter((a) => a.status >= 400)).toEqual([]);
    expect(meter.peak(busy.upn)).toBe(4); // they did overlap, and never more than Outlook's 4
    // Ten requests through four slots take three rounds of Graph's latency: the extra calls waited their turn.
    expect(Math.max(...answers.map((a) => a.at)) - started).toBeGreaterThanOrEqual(3 * LATENCY_MS - 20);

    // Another mailbox has its own slots: its call was answered in one round, before the busy mailbox's third.
    expect(elsewhere.value.status).toBe(200);
    expect(elsewhere.at - started).toBeLessThan(Math.max(...answers.map((a) => a.at)) - started);
    expect(meter.peak(other.upn)).toBe(1);
  });
});

const acrossReplicas = redisUrl ? describe : describe.skip;

acrossReplicas('Outlook mailbox concurrency across replicas sharing Redis', () => {
  test('when two Hub replicas send ten calls at once to one mailbox, then Graph never sees more than its 4 in flight, and all succeed without a 429', async () => {
    const BUDGET = 40;
    const LATENCY_MS = 500;
    const [a, b] = [await hubWith(BUDGET, 600, 'redis'), await hubWith(BUDGET, 600, 'redis')];
    await throttleSandboxAt(ms, BUDGET, 600);
    const box = await connectNewMailbox(a, ms, 'replicated');
    // The same mailbox of the same customer, connected on the other replica too (each test Hub has its own database).
    await connectToMicrosoft(b, ms, { upn: box.upn, integration: 'outlook_calendar', customerId: box.customerId });
    await connectToMicrosoft(b, ms, { upn: box.upn, integration: 'outlook_mail', customerId: box.customerId });
    await ms.control('POST', '/faults', { operation: 'calendars.list', latency_ms: LATENCY_MS });
    await ms.control('POST', '/faults', { operation: 'messages.list', latency_ms: LATENCY_MS });

    // Five calls per replica: each alone is within its own 4 slots for one round, together they are not.
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const hub = i % 2 === 0 ? a : b;
        return timed(Math.floor(i / 2) % 2 === 0 ? calendarCall(hub, box) : mailCall(hub, box));
      }),
    );

    for (const { value: res } of answers) {
      expect(res.status).toBe(200);
      expect(res.body.metadata.api_calls).toBe(1);
    }
    const seen = await graphAnswersFor(ms, box.upn);
    expect(seen).toHaveLength(10);
    expect(seen.filter((r) => r.status >= 400)).toEqual([]); // no 429 MailboxConcurrency
    expect(meter.peak(box.upn)).toBe(4);
    expect(Math.max(...answers.map((r) => r.at)) - started).toBeGreaterThanOrEqual(3 * LATENCY_MS - 20);
    for (const hub of [a, b]) {
      expectNoFallback(hub);
      expect(hub.logs.text()).not.toContain('could not be taken in Redis');
    }
  });
});

/** Counted in this process, and — when REDIS_URL is set — in Redis, as replicas share it. */
const STORES: ['in memory' | 'in Redis'][] = [['in memory'], ...(redisUrl ? [['in Redis'] as ['in Redis']] : [])];

describe.each(STORES)('Outlook mailbox request budget counted %s', (where) => {
  const store = where === 'in Redis' ? 'redis' : 'memory';

  test("when a mailbox's calendar and mail calls spend its budget, then either kind is refused RATE_LIMITED before Graph while another customer's mailbox goes on", async () => {
    const BUDGET = 6;
    const hub = await hubWith(BUDGET, 600, store);
    await throttleSandboxAt(ms, BUDGET, 600);
    const shared = await connectNewMailbox(hub, ms, 'shared');
    const other = await connectNewMailbox(hub, ms, 'neighbour');

    // Half the budget on calendar calls, half on mail: each kind alone is within it, together they spend it.
    const spent = await Promise.all([
      ...Array.from({ length: BUDGET / 2 }, () => calendarCall(hub, shared)),
      ...Array.from({ length: BUDGET / 2 }, () => mailCall(hub, shared)),
    ]);
    expect(spent.map((r) => r.status)).toEqual(Array(BUDGET).fill(200));

    for (const refused of [await mailCall(hub, shared), await calendarCall(hub, shared)]) {
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'RATE_LIMITED',
        retryable: true,
        details: { scope: 'upstream_quota', reason: 'mailbox_quota', limit: BUDGET, window_s: 600 },
      });
      expect(refused.body.metadata.api_calls).toBe(0);
    }
    const seen = await graphAnswersFor(ms, shared.upn);
    expect(seen.map((a) => a.status)).toEqual(Array(BUDGET).fill(200)); // Graph saw the budget exactly, no 429
    expect(new Set(seen.map((a) => a.operation))).toEqual(new Set(['calendars.list', 'messages.list']));

    // One credential never degrades another: the other customer's mailbox has its whole budget.
    const neighbour = [await calendarCall(hub, other), await mailCall(hub, other)];
    expect(neighbour.map((r) => r.status)).toEqual([200, 200]);
    expect((await graphAnswersFor(ms, other.upn)).map((a) => a.status)).toEqual([200, 200]);
    expectNoFallback(hub);
  });

  test("when a mailbox's budget for the window is spent, then retry_after_s is the time until the window frees a request, and a call after that wait succeeds", async () => {
    const BUDGET = 5;
    const WINDOW_S = 3;
    const hub = await hubWith(BUDGET, WINDOW_S, store);
    await throttleSandboxAt(ms, BUDGET, WINDOW_S);
    const box = await connectNewMailbox(hub, ms, 'brief');

    const sentFirst = Date.now(); // the window opens when the first request is charged: after this…
    const first = await calendarCall(hub, box);
    const answeredFirst = Date.now(); // …and before this
    expect(first.status).toBe(200);
    const rest = await Promise.all(Array.from({ length: BUDGET - 1 }, () => calendarCall(hub, box)));
    expect(rest.map((r) => r.status)).toEqual(Array(BUDGET - 1).fill(200));

    const sentRefused = Date.now();
    const refused = await calendarCall(hub, box);
    const answeredRefused = Date.now();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { scope: 'upstream_quota', reason: 'mailbox_quota', limit: BUDGET } });
    const retryAfterS = refused.body.error.retry_after_s as number;
    expect(refused.headers['retry-after']).toBe(String(retryAfterS));
    // True within a second: whole seconds, rounded up, of what is left of the window when the call was refused.
    const leftAtLeast = sentFirst + WINDOW_S * 1000 - answeredRefused;
    const leftAtMost = answeredFirst + WINDOW_S * 1000 - sentRefused;
    expect(retryAfterS * 1000).toBeGreaterThanOrEqual(leftAtLeast);
    expect(retryAfterS * 1000).toBeLessThanOrEqual(leftAtMost + 1000);
    expect((await graphAnswersFor(ms, box.upn)).map((a) => a.status)).toEqual(Array(BUDGET).fill(200));

    await sleep(retryAfterS * 1000);
    const after = await calendarCall(hub, box);
    expect(after.status).toBe(200);
    expect(after.body.metadata.api_calls).toBe(1);
    expect((await graphAnswersFor(ms, box.upn)).map((a) => a.status)).toEqual(Array(BUDGET + 1).fill(200));
    expectNoFallback(hub);
  });

  test("when a mailbox spent its budget late in one window's length, then early in the next the Hub admits only what Graph's sliding count allows, and says when the next request fits", async () => {
    const BUDGET = 4;
    const WINDOW_S = 3;
    const hub = await hubWith(BUDGET, WINDOW_S, store);
    await throttleSandboxAt(ms, BUDGET, WINDOW_S);
    const box = await connectNewMailbox(hub, ms, 'boundary');

    expect((await calendarCall(hub, box)).status).toBe(200);
    const answeredFirst = Date.now();
    await sleep(1_800); // what follows must reach the Hub within this much after the first request leaves
    const sentLate = Date.now();
    const late = await Promise.all(Array.from({ length: BUDGET - 1 }, () => calendarCall(hub, box)));
    const answeredLate = Date.now();
    expect(late.map((r) => r.status)).toEqual(Array(BUDGET - 1).fill(200));

    // The first request has left the window; the late ones have not: room for one, where a fixed window would refill.
    await sleep(answeredFirst + WINDOW_S * 1000 + 100 - Date.now());
    const sentNext = Date.now();
    const next = await Promise.all(Array.from({ length: BUDGET - 1 }, () => calendarCall(hub, box)));
    const answeredNext = Date.now();
    expect(next.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    const retryAfterS = Math.max(...next.filter((r) => r.status === 429).map((r) => r.body.error.retry_after_s as number));
    expect(retryAfterS * 1000).toBeGreaterThanOrEqual(sentLate + WINDOW_S * 1000 - answeredNext);
    expect(retryAfterS * 1000).toBeLessThanOrEqual(answeredLate + WINDOW_S * 1000 - sentNext + 1000);

    await sleep(retryAfterS * 1000);
    const after = await calendarCall(hub, box);
    expect(after.status).toBe(200);
    expect(after.body.metadata.api_calls).toBe(1);
    // Graph saw every request the Hub admitted, and never needed to throttle one.
    expect((await graphAnswersFor(ms, box.upn)).map((a) => a.status)).toEqual(Array(BUDGET + 2).fill(200));
    expectNoFallback(hub);
  });
});
