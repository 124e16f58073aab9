import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { MailboxQuota } from '../../src/protection/mailbox-quota';
import { LONGEST_WALK, createSlidingQuota, slidingQuotaKeys } from '../../src/protection/sliding-quota';
import { openRedis } from '../../src/store/redis';
import { createRedisHealth } from '../../src/store/redis-health';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/**
 * The sliding mailbox budgets as replicas share them through Redis (the weighted log's script): real Redis, each
 * "replica" its own ioredis client and its own quota object, as two Hub processes are. Upload budgets weigh each
 * entry by its body's bytes (Outlook's "150 megabytes (MB) upload (PATCH, POST, PUT) in a 5 minute period").
 */

const { redisUrl } = services();
const maybe = redisUrl ? describe : describe.skip;
const logs = captureLogs('warn');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

maybe('the sliding budgets in Redis', () => {
  const clients: Redis[] = [];

  async function replica(units: number, windowS: number, replicas = 2): Promise<MailboxQuota> {
    const client = await openRedis(redisUrl!, logs.logger);
    clients.push(client);
    const health = createRedisHealth(client, { logger: logs.logger, probeIntervalMs: 60_000 });
    return createSlidingQuota({ name: 'uploads', units, windowS, replicas, redisTimeoutMs: 1_000 }, { client, health }, logs.logger);
  }
  const mailbox = () => `outlook_mailbox:${randomUUID()}@example.com`;

  afterAll(async () => {
    for (const client of clients) await client.quit();
  });

  test('when two replicas charge bytes to one mailbox, then together they spend the whole budget, not each its share, and one entry per charge is kept', async () => {
    const [a, b] = [await replica(1_000_000, 60), await replica(1_000_000, 60)];
    const box = mailbox();
    for (let i = 0; i < 4; i++) expect(await (i % 2 === 0 ? a : b).charge(box, 200_000)).toEqual({ ok: true });
    expect(await a.charge(box, 200_000)).toEqual({ ok: true }); // 1,000,000: more than a replica's half
    const refused = await b.charge(box, 1);
    expect(refused).toMatchObject({ ok: false, limit: 1_000_000, windowS: 60 });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(59_000);
    const [log, total] = slidingQuotaKeys('uploads', box);
    expect(await clients[0]!.zcard(log)).toBe(5);
    expect(await clients[0]!.get(total)).toBe('1000000');
    expect(await clients[0]!.pttl(total)).toBeGreaterThan(59_000);
    expect(logs.text()).not.toContain('could not be charged in Redis');
  });

  test('when entries leave the window, then their bytes leave the running total with them, and the wait was the time until enough had left', async () => {
    const quota = await replica(1_000, 1);
    const box = mailbox();
    expect(await quota.charge(box, 600)).toEqual({ ok: true });
    await sleep(400);
    expect(await quota.charge(box, 300)).toEqual({ ok: true });
    const refused = (await quota.charge(box, 500)) as { ok: false; retryAfterMs: number };
    // 900 + 500 is 400 over: the first entry (600 bytes) must leave, about 600 ms from now.
    expect(refused.ok).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(450);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(600);
    await sleep(refused.retryAfterMs + 20);
    expect(await quota.charge(box, 500)).toEqual({ ok: true });
    expect(await clients.at(-1)!.get(slidingQuotaKeys('uploads', box)[1])).toBe('800');
  });

  test('when a refusal would need more of the oldest entries than one walk reads, then it answers when the last entry it read leaves: a true "not before", for bounded work', async () => {
    const quota = await replica(3_000, 60, 1);
    const box = mailbox();
    // 2,999 one-byte uploads, their times spread so the walk's stopping point is visible in the wait.
    const [log] = slidingQuotaKeys('uploads', box);
    expect(await quota.charge(box, 1)).toEqual({ ok: true });
    const first = Number((await clients.at(-1)!.zrange(log, 0, 0, 'WITHSCORES'))[1]);
    const members = Array.from({ length: 2_998 }, (_, i) => [first + 1 + i * 10, `m${i}:1`] as const);
    await clients.at(-1)!.zadd(log, ...members.flat());
    await clients.at(-1)!.set(slidingQuotaKeys('uploads', box)[1], '2999', 'PX', 60_000);
    // 2,000 bytes need the oldest 1,999 entries to leave; one walk reads LONGEST_WALK of them.
    const refused = (await quota.charge(box, 2_000)) as { ok: false; retryAfterMs: number };
    expect(refused.ok).toBe(false);
    const lastRead = first + 1 + (LONGEST_WALK - 2) * 10; // the walk's last entry (the first one is the real charge)
    const roomAt = first + 1 + (1_999 - 2) * 10;
    // Redis' clock after the charge (seconds and microseconds): never earlier than the script's own now.
    const [seconds, micros] = await clients.at(-1)!.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    expect(now + refused.retryAfterMs).toBeGreaterThanOrEqual(lastRead + 60_000 - 50);
    expect(now + refused.retryAfterMs).toBeLessThan(roomAt + 60_000);
  });

  test('when one charge is larger than the whole budget, then Redis refuses it as never fitting and spends nothing', async () => {
    const quota = await replica(1_000, 60, 1);
    const box = mailbox();
    expect(await quota.charge(box, 1_001)).toMatchObject({ ok: false, retryAfterMs: 60_000, neverFits: true });
    expect(await clients.at(-1)!.exists(slidingQuotaKeys('uploads', box))).toBe(0);
  });

  test('when the running total is lost (evicted), then it is counted again from the log, never from zero', async () => {
    const quota = await replica(1_000, 60, 1);
    const box = mailbox();
    const [log, total] = slidingQuotaKeys('uploads', box);
    expect(await quota.charge(box, 700)).toEqual({ ok: true });
    expect(await quota.charge(box, 200)).toEqual({ ok: true });
    await clients.at(-1)!.del(total);
    expect(await quota.charge(box, 200)).toMatchObject({ ok: false });
    expect(await quota.charge(box, 100)).toEqual({ ok: true });
    expect(await clients.at(-1)!.get(total)).toBe('1000');
    expect(await clients.at(-1)!.zcard(log)).toBe(3);
  });

  test('when many small charges fill the budget, then a large one waits for exactly as many of the oldest as make room', async () => {
    const quota = await replica(10_000, 2, 1);
    const box = mailbox();
    for (let i = 0; i < 250; i++) expect((await quota.charge(box, 40)).ok).toBe(true); // 10,000 in 250 entries
    const started = Date.now();
    const refused = (await quota.charge(box, 9_000)) as { ok: false; retryAfterMs: number };
    expect(refused.ok).toBe(false);
    await sleep(refused.retryAfterMs);
    // 225 of the 250 entries (9,000 bytes) must have left: the wait ends when the 225th does, within the 2 s window.
    expect(Date.now() - started).toBeLessThan(2_100);
    let admitted = await quota.charge(box, 9_000);
    for (let i = 0; !admitted.ok && i < 5; i++) {
      await sleep(5); // the wait is rounded to Redis' millisecond
      admitted = await quota.charge(box, 9_000);
    }
    expect(admitted).toEqual({ ok: true });
  });
});
