import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { openRedis } from '../../src/store/redis';
import { asAdmin } from '../helpers/admin';
import { runTool } from '../helpers/connected';
import { services } from '../helpers/env';
import { type TestHub, buildTestHub, microsoftGraphEnv } from '../helpers/hub';
import { client } from '../helpers/http';
import { captureLogs } from '../helpers/logs';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { connectToMicrosoft } from '../helpers/microsoft-connected';
import { type Mailbox, connectNewMailbox, graphAnswersFor, throttleSandboxAt } from '../helpers/outlook-limits';

/**
 * Outlook's upload limit per app and mailbox — "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period"
 * (learn.microsoft.com/graph/throttling-limits#outlook-service-limits) — kept by the Hub before Graph would answer
 * 429 "Application is over its IncomingBytes limit.", as an agent meets it over HTTP. The budget is a few hundred KB
 * and its window seconds (HUB_OUTLOOK_UPLOAD_BYTES, _WINDOW_S), and the sandbox throttles uploads at the very same
 * figures: a Hub that let one body too many through would meet the sandbox's 429.
 */

const BUDGET = 300_000;
const WINDOW_S = 5;
/** A draft of this many characters is about 148.6 KB on the wire: two fill the budget but for a few KB. */
const BODY_CHARS = 148_000;

let ms: MicrosoftWorld;
const redisUrl = services().redisUrl;
const opened: { hubs: TestHub[]; redis: Redis[] } = { hubs: [], redis: [] };

beforeAll(async () => {
  ms = await startMicrosoftWorld();
});
afterAll(async () => {
  for (const hub of opened.hubs) await hub.close();
  for (const redis of opened.redis) await redis.quit();
  await ms?.close();
});

async function hubWith(store: 'memory' | 'redis', budget = BUDGET): Promise<TestHub> {
  const redis = store === 'redis' ? await openRedis(redisUrl!, captureLogs().logger) : undefined;
  if (redis) opened.redis.push(redis);
  const hub = await buildTestHub({
    env: { ...microsoftGraphEnv(ms.graphUrl), HUB_OUTLOOK_UPLOAD_BYTES: String(budget), HUB_OUTLOOK_UPLOAD_WINDOW_S: String(WINDOW_S) },
    ...(redis ? { redis } : {}),
  });
  opened.hubs.push(hub);
  return hub;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const send = (hub: TestHub, box: Mailbox, chars = BODY_CHARS) =>
  runTool(
    hub,
    { customerId: box.customerId, userId: null },
    'email_send',
    { to: [DEMO.ben], subject: 'Minutes', body: 'm'.repeat(chars) },
    { requestId: randomUUID() },
  );
const createEvent = (hub: TestHub, box: Mailbox) =>
  runTool(
    hub,
    { customerId: box.customerId, userId: null },
    'calendar_create_event',
    { title: 'Review', start: '2030-01-15T14:00:00Z', end: '2030-01-15T15:00:00Z', description: 'd'.repeat(8_000) },
    { requestId: randomUUID() },
  );
const listCalendars = (hub: TestHub, box: Mailbox) => runTool(hub, { customerId: box.customerId, userId: null }, 'calendar_list_calendars', {});

/** Graph never answered 429 IncomingBytes (nor any 429) for the mailbox. */
async function expectNoGraph429(box: Mailbox) {
  expect((await graphAnswersFor(ms, box.upn)).filter((a) => a.status === 429)).toEqual([]);
}
const drafts = async (box: Mailbox) => (await graphAnswersFor(ms, box.upn)).filter((a) => a.operation === 'messages.create').length;
const expectUploadRefusal = (res: { status: number; body: { error: Record<string, unknown> } }) => {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({
    code: 'RATE_LIMITED',
    retryable: true,
    details: { scope: 'upstream_quota', reason: 'mailbox_upload_quota', limit: BUDGET, window_s: WINDOW_S, cost: expect.any(Number) },
  });
};
const expectNoFallback = (hub: TestHub) => expect(hub.logs.text()).not.toContain('could not be charged in Redis');

const STORES: ['in memory' | 'in Redis'][] = [['in memory'], ...(redisUrl ? [['in Redis'] as ['in Redis']] : [])];

describe.each(STORES)('Outlook mailbox upload budget counted %s', (where) => {
  const store = where === 'in Redis' ? 'redis' : 'memory';

  test('when email_send calls with large bodies spend the upload budget, then the next is RATE_LIMITED with a true retry_after_s, Graph never answered 429, and after that wait it is sent', async () => {
    const hub = await hubWith(store);
    await throttleSandboxAt(ms, 10_000, 600, { bytes: BUDGET, windowS: WINDOW_S });
    const box = await connectNewMailbox(hub, ms, 'uploader');

    const sentFirst = Date.now();
    const first = await send(hub, box);
    const answeredFirst = Date.now();
    expect(first.status).toBe(200);
    expect((await send(hub, box)).status).toBe(200);

    const sentRefused = Date.now();
    const refused = await send(hub, box);
    const answeredRefused = Date.now();
    expectUploadRefusal(refused);
    expect(refused.body.error.details.cost).toBeGreaterThan(BODY_CHARS);
    const retryAfterS = refused.body.error.retry_after_s as number;
    expect(refused.headers['retry-after']).toBe(String(retryAfterS));
    // True within a second: whole seconds, rounded up, until the first draft's bytes leave the window.
    expect(retryAfterS * 1000).toBeGreaterThanOrEqual(sentFirst + WINDOW_S * 1000 - answeredRefused);
    expect(retryAfterS * 1000).toBeLessThanOrEqual(answeredFirst + WINDOW_S * 1000 - sentRefused + 1000);
    expect(await drafts(box)).toBe(2); // the refused draft never left: nothing half-written
    await expectNoGraph429(box);
    // Its receipt records the refusal like the request budget's: RATE_LIMITED, and no draft among its operations.
    // Lookups may precede it: while Redis' idempotency epoch is under ten minutes old (a Redis that was just
    // emptied, as on a fresh machine), every request_id may be an earlier attempt's, so the send looks in Sent first.
    await hub.audit.drain();
    const receipts = await client(hub.app).get(`/api/admin/customers/${box.customerId}/receipts?tool=email_send`).set('Authorization', asAdmin()).expect(200);
    const receipt = receipts.body.receipts[0] as { api_calls: number; google_operations: { operation: string }[] };
    expect(receipt).toMatchObject({
      outcome: 'RATE_LIMITED',
      error: { code: 'RATE_LIMITED', details: { reason: 'mailbox_upload_quota', cost: refused.body.error.details.cost } },
    });
    expect(receipt.google_operations.filter((o) => o.operation !== 'messages.list')).toEqual([]);
    expect(receipt.api_calls).toBe(receipt.google_operations.length);

    // The sandbox dates a body when it arrives, a moment after the Hub charged it: the wait plus that moment.
    await sleep(retryAfterS * 1000 + 100);
    const after = await send(hub, box);
    expect(after.status).toBe(200);
    expect(after.body.result.status).toBe('sent');
    expect(await drafts(box)).toBe(3);
    await expectNoGraph429(box);
    expectNoFallback(hub);
  });

  test("when mail spent a mailbox's upload budget, then its calendar writes are refused too while its reads and another mailbox's writes go on", async () => {
    const hub = await hubWith(store);
    await throttleSandboxAt(ms, 10_000, 600, { bytes: BUDGET, windowS: WINDOW_S });
    const box = await connectNewMailbox(hub, ms, 'shared');
    const other = await connectNewMailbox(hub, ms, 'neighbour');

    for (let i = 0; i < 2; i++) expect((await send(hub, box)).status).toBe(200);
    const event = await createEvent(hub, box);
    expectUploadRefusal(event);
    expect(event.body.error.message).toMatch(
      /^This mailbox's Outlook upload limit \(300000 bytes per 5 s\) is spent; events\.create \(\d+ bytes\) was not sent to Microsoft$/,
    );
    expect((await listCalendars(hub, box)).status).toBe(200); // a GET uploads nothing
    expect((await createEvent(hub, other)).status).toBe(200);
    expect((await graphAnswersFor(ms, box.upn)).filter((a) => a.operation === 'events.create')).toEqual([]);
    await expectNoGraph429(box);
    expectNoFallback(hub);
  });

  test('when one email body is larger than the whole upload budget, then it is refused at once as never fitting, not retryable', async () => {
    const hub = await hubWith(store, 100_000);
    await throttleSandboxAt(ms, 10_000, 600, { bytes: 100_000, windowS: WINDOW_S });
    const box = await connectNewMailbox(hub, ms, 'oversized');
    const refused = await send(hub, box, 120_000);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: false, details: { reason: 'mailbox_upload_quota', limit: 100_000 } });
    expect(refused.body.error.retry_after_s).toBeUndefined();
    expect(await drafts(box)).toBe(0);
    expect((await send(hub, box, 90_000)).status).toBe(200);
  });
});

const acrossReplicas = redisUrl ? describe : describe.skip;

acrossReplicas('Outlook mailbox upload budget across replicas sharing Redis', () => {
  test('when two Hub replicas send large bodies to one mailbox, then together they stay within its one upload budget and Graph never answers 429', async () => {
    const [a, b] = [await hubWith('redis'), await hubWith('redis')];
    await throttleSandboxAt(ms, 10_000, 600, { bytes: BUDGET, windowS: WINDOW_S });
    const box = await connectNewMailbox(a, ms, 'replicated');
    await connectToMicrosoft(b, ms, { upn: box.upn, integration: 'outlook_mail', customerId: box.customerId });

    expect((await send(a, box)).status).toBe(200);
    expect((await send(b, box)).status).toBe(200);
    // Each replica has sent one body, well within the budget alone: only the budget they share in Redis is spent.
    expectUploadRefusal(await send(a, box));
    expectUploadRefusal(await send(b, box));
    expect(await drafts(box)).toBe(2);
    await expectNoGraph429(box);
    for (const hub of [a, b]) expectNoFallback(hub);
  });
});
