import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type SharedMailboxSlots, type SharedSlotSettings, createSharedMailboxSlots, sharedSlotId } from '../../src/protection/shared-mailbox-slots';
import { slotKeys } from '../../src/protection/shared-slot-scripts';
import { openRedis } from '../../src/store/redis';
import { createRedisHealth } from '../../src/store/redis-health';
import { services } from '../helpers/env';
import { captureLogs } from '../helpers/logs';
import { TcpProxy } from '../helpers/proxy';

/**
 * The in-flight cap per mailbox that replicas share through Redis (Outlook's 4 concurrent requests per app and
 * mailbox, Gmail's per-user concurrent requests): real Redis, each "replica" its own ioredis client (so its own
 * subscriber connection) and its own slots object, as two Hub processes are. Waiters whose re-check is 10 s away can
 * only have been woken by a release.
 */

const { redisUrl } = services();
const maybe = redisUrl ? describe : describe.skip;
const { logger } = captureLogs('error');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mailboxKeys = (mailbox: string) => slotKeys(sharedSlotId(mailbox)) as [string, string, string];
const NO_POLLING = { recheckMs: 10_000 };

maybe('the shared in-flight slots of a mailbox', () => {
  const clients: Redis[] = [];
  const proxies: TcpProxy[] = [];

  async function replica(limit: number, options: Partial<SharedSlotSettings> & { url?: string } = {}) {
    const client = await openRedis(options.url ?? redisUrl!, logger);
    clients.push(client);
    const health = createRedisHealth(client, { logger, probeIntervalMs: 60_000 });
    const settings = { limit, leaseMs: 10_000, redisTimeoutMs: 1_000, ...options };
    return Object.assign(createSharedMailboxSlots(settings, { client, health }, logger), { client });
  }
  const redis = () => clients[0]!;

  afterAll(async () => {
    for (const client of clients) if (client.status !== 'end') await client.quit().catch(() => client.disconnect());
    for (const proxy of proxies) await proxy.cut();
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
    const [leases, queue, tickets] = mailboxKeys(mailbox);
    expect(await redis().exists(leases, queue, tickets)).toBe(0);
  });

  test('when a replica died holding slots, then they are taken again once their leases expire', async () => {
    const dead = await replica(2, { leaseMs: 300 });
    const alive = await replica(2, { leaseMs: 300, recheckMs: 50 });
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    for (let i = 0; i < 2; i++) expect((await dead.acquire(mailbox, AbortSignal.timeout(1_000))).ok).toBe(true); // never released
    const started = Date.now();
    const slot = await alive.acquire(mailbox, AbortSignal.timeout(5_000));
    expect(slot.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  test("when a slot is released, then the next waiter, on another replica, is woken and gets it; and a waiter whose deadline fires first answers 'deadline'", async () => {
    const [a, b] = [await replica(1, NO_POLLING), await replica(1, NO_POLLING)];
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
    expect(Date.now() - releasedAt).toBeLessThan(2_000); // woken: its own re-check was 10 s away
  });

  test('when three replicas wait, then they are served in arrival order, whichever replica each waits on', async () => {
    const [a, b, c, d] = [await replica(1, NO_POLLING), await replica(1, NO_POLLING), await replica(1, NO_POLLING), await replica(1, NO_POLLING)];
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    const held = await a.acquire(mailbox, AbortSignal.timeout(1_000));
    if (!held.ok) throw new Error('no first slot');
    const served: string[] = [];
    const wait = async (name: string, slots: SharedMailboxSlots) => {
      const slot = await slots.acquire(mailbox, AbortSignal.timeout(10_000));
      if (!slot.ok) throw new Error(`${name}: no slot (${slot.reason})`);
      served.push(name);
      await sleep(10);
      slot.release();
    };
    const [queue] = mailboxKeys(mailbox).slice(1);
    // They arrive in this order (each queued before the next comes), replicas interleaved: d, b, c, then b again.
    const waiters: Array<Promise<void>> = [];
    for (const [name, slots] of [
      ['d1', d],
      ['b1', b],
      ['c1', c],
      ['b2', b],
    ] as const) {
      const queued = await redis().zcard(queue!);
      waiters.push(wait(name, slots));
      while ((await redis().zcard(queue!)) === queued) await sleep(5);
    }
    held.release();
    await Promise.all(waiters);
    expect(served).toEqual(['d1', 'b1', 'c1', 'b2']);
  });

  test('when a slot is released, then only the waiter first in line tries again: the others sleep until their turn', async () => {
    const [a, b, c, d] = [await replica(1, NO_POLLING), await replica(1, NO_POLLING), await replica(1, NO_POLLING), await replica(1, NO_POLLING)];
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    const [, queue] = mailboxKeys(mailbox);
    const tries = new Map<string, number>();
    for (const [name, slots] of [
      ['b', b],
      ['c', c],
      ['d', d],
    ] as const) {
      const evaluate = slots.client.eval.bind(slots.client);
      slots.client.eval = ((...args: Parameters<typeof evaluate>) => {
        tries.set(name, (tries.get(name) ?? 0) + 1);
        return evaluate(...args);
      }) as typeof evaluate;
    }
    const held = await a.acquire(mailbox, AbortSignal.timeout(1_000));
    if (!held.ok) throw new Error('no first slot');
    const slots: Record<string, Promise<Awaited<ReturnType<SharedMailboxSlots['acquire']>>>> = {};
    for (const [name, replicaSlots] of [
      ['b', b],
      ['c', c],
      ['d', d],
    ] as const) {
      const queued = await redis().zcard(queue);
      slots[name] = replicaSlots.acquire(mailbox, AbortSignal.timeout(10_000));
      while ((await redis().zcard(queue)) === queued) await sleep(5);
    }
    await sleep(50);
    const before = new Map(tries);
    held.release();
    const first = await slots.b!;
    if (!first.ok) throw new Error('b: no slot');
    await sleep(50);
    expect(tries.get('b')! - before.get('b')!).toBe(1);
    expect([tries.get('c'), tries.get('d')]).toEqual([before.get('c'), before.get('d')]);
    first.release();
    const second = await slots.c!;
    if (!second.ok) throw new Error('c: no slot');
    second.release();
    expect((await slots.d!).ok).toBe(true);
  });

  test("when a waiter's replica dies (its ticket is never renewed), then the queue moves on once the ticket ends", async () => {
    const holder = await replica(1, NO_POLLING);
    const doomed = await replica(1, { recheckMs: 50, ticketMs: 1_500, redisTimeoutMs: 200 });
    const next = await replica(1, { recheckMs: 50, ticketMs: 1_000 });
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    const [, queue, tickets] = mailboxKeys(mailbox);
    const held = await holder.acquire(mailbox, AbortSignal.timeout(1_000));
    if (!held.ok) throw new Error('no first slot');
    const lost = doomed.acquire(mailbox, AbortSignal.timeout(10_000));
    while ((await redis().zcard(queue)) < 1) await sleep(5);
    let nextIn = false;
    const waiting = next.acquire(mailbox, AbortSignal.timeout(10_000)).then((slot) => ((nextIn = slot.ok), slot));
    while ((await redis().zcard(queue)) < 2) await sleep(5);

    doomed.client.disconnect(); // its process is gone as far as Redis can tell: nothing renews its ticket now
    held.release();
    await sleep(100);
    expect(nextIn).toBe(false); // the dead waiter's ticket still holds the head of the queue
    expect((await waiting).ok).toBe(true);
    await expect(lost).resolves.toEqual({ ok: false, reason: 'unavailable' });
    expect(await redis().exists(queue, tickets)).toBe(0);
  });

  test("when a waiter's deadline fires, then its ticket leaves the queue", async () => {
    const [a, b] = [await replica(1, NO_POLLING), await replica(1, NO_POLLING)];
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    const [, queue, tickets] = mailboxKeys(mailbox);
    const held = await a.acquire(mailbox, AbortSignal.timeout(1_000));
    if (!held.ok) throw new Error('no first slot');
    await expect(b.acquire(mailbox, AbortSignal.timeout(200))).resolves.toEqual({ ok: false, reason: 'deadline' });
    for (let i = 0; i < 100 && (await redis().exists(queue, tickets)) > 0; i++) await sleep(10); // the removal is not awaited
    expect(await redis().exists(queue, tickets)).toBe(0);
    held.release();
  });

  test('when Redis stops answering, then acquire answers unavailable within the Redis timeout, and at once after that', async () => {
    const url = new URL(redisUrl!);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    await proxy.up();
    proxies.push(proxy);
    const slots = await replica(1, { url: proxy.urlFor(redisUrl!), redisTimeoutMs: 200 });
    const mailbox = `outlook_mailbox:${randomUUID()}@example.com`;
    const first = await slots.acquire(mailbox, AbortSignal.timeout(1_000));
    if (!first.ok) throw new Error('no first slot');
    first.release();

    proxy.blackhole();
    const started = Date.now();
    await expect(slots.acquire(mailbox, AbortSignal.timeout(10_000))).resolves.toEqual({ ok: false, reason: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(2_000); // its 200 ms budget, not the call's 10 s deadline
    const again = Date.now();
    await expect(slots.acquire(mailbox, AbortSignal.timeout(10_000))).resolves.toEqual({ ok: false, reason: 'unavailable' });
    expect(Date.now() - again).toBeLessThan(100); // the breaker knows now: no second wait
    slots.client.disconnect(); // QUIT would meet the black hole
  });

  test('when another mailbox is busy, then its slots are its own', async () => {
    const slots = await replica(1);
    const busy = await slots.acquire(`outlook_mailbox:${randomUUID()}`, AbortSignal.timeout(1_000));
    expect(busy.ok).toBe(true);
    await expect(slots.acquire(`outlook_mailbox:${randomUUID()}`, AbortSignal.timeout(200))).resolves.toMatchObject({ ok: true });
  });
});
