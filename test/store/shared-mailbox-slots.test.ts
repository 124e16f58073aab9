import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type SharedMailboxSlots, createSharedMailboxSlots, sharedSlotsKey } from '../../src/protection/shared-mailbox-slots';
import { openRedis } from '../../src/store/redis';
import { createRedisHealth } from '../../src/store/redis-health';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/**
 * The in-flight cap per mailbox that replicas share through Redis (Outlook's 4 concurrent requests per app and
 * mailbox): real Redis, each "replica" its own ioredis client and its own slots object, as two Hub processes are.
 */

const { redisUrl } = services();
const maybe = redisUrl ? describe : describe.skip;
const { logger } = captureLogs('error');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

maybe('the shared in-flight slots of a mailbox', () => {
  const clients: Redis[] = [];

  async function replica(limit: number, leaseMs = 10_000): Promise<SharedMailboxSlots> {
    const client = await openRedis(redisUrl!, logger);
    clients.push(client);
    const health = createRedisHealth(client, { logger, probeIntervalMs: 60_000 });
    return createSharedMailboxSlots({ limit, leaseMs, redisTimeoutMs: 1_000 }, { client, health }, logger);
  }

  afterAll(async () => {
    for (const client of clients) await client.quit();
  });

  test('when two replicas race 20 acquisitions of one mailbox, then never more than the limit hold a slot at once, and every one gets a slot in turn', async () => {
    const [a, b] = [await replica(4), await replica(4)];
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    let holding = 0;
    let peak = 0;
    const one = async (slots: SharedMailboxSlots) => {
      const slot = await slots.acquire(mailbox, AbortSignal.timeout(10_000));
      if (!slot.ok) throw new Error(`no slot: ${slot.reason}`);
      holding++;
      peak = Math.max(peak, holding);
      await sleep(30);
      holding--;
      slot.release();
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => one(i % 2 === 0 ? a : b)));
    expect(peak).toBe(4);
    await sleep(50); // the last releases are not awaited
    expect(await clients[0]!.zcard(sharedSlotsKey(mailbox))).toBe(0);
  });

  test('when a replica died holding slots, then they are taken again once their leases expire', async () => {
    const dead = await replica(2, 300);
    const alive = await replica(2, 300);
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    for (let i = 0; i < 2; i++) expect((await dead.acquire(mailbox, AbortSignal.timeout(1_000))).ok).toBe(true); // never released
    const started = Date.now();
    const slot = await alive.acquire(mailbox, AbortSignal.timeout(5_000));
    expect(slot.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  test("when every slot is taken, then a waiter gets one as soon as another replica releases it, and a waiter whose deadline fires first answers 'deadline'", async () => {
    const [a, b] = [await replica(1), await replica(1)];
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    const held = await a.acquire(mailbox, AbortSignal.timeout(1_000));
    if (!held.ok) throw new Error('no first slot');

    await expect(b.acquire(mailbox, AbortSignal.timeout(200))).resolves.toEqual({ ok: false, reason: 'deadline' });
    const waiting = b.acquire(mailbox, AbortSignal.timeout(5_000));
    await sleep(100);
    const releasedAt = Date.now();
    held.release();
    const slot = await waiting;
    expect(slot.ok).toBe(true);
    expect(Date.now() - releasedAt).toBeLessThan(500); // the next try after the release, not the lease's end
  });

  test('when another mailbox is busy, then its slots are its own', async () => {
    const slots = await replica(1);
    const busy = await slots.acquire(`outlook_mailbox:${randomUUID()}`, AbortSignal.timeout(1_000));
    expect(busy.ok).toBe(true);
    await expect(slots.acquire(`outlook_mailbox:${randomUUID()}`, AbortSignal.timeout(200))).resolves.toMatchObject({ ok: true });
  });
});
