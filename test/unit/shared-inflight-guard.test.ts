import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { SharedRedis } from '../../src/protection/rate-limit';
import { ACQUIRE_SCRIPT, LEAVE_SCRIPT, RELEASE_SCRIPT } from '../../src/protection/shared-slot-scripts';
import { RELEASED_CHANNEL } from '../../src/protection/slot-wakeups';
import { googleVendor } from '../../src/providers/google/resilience';
import { type AccountLimits, DeadlineExceededError, type VendorProfile, createAccountGuard } from '../../src/resilience';
import { RedisUnavailableError } from '../../src/store/redis-health';
import { testConfig } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/**
 * How the account guard uses the in-flight slots shared through Redis (Outlook's profile): behind the replica's own
 * gate, only for a profile that asks for it, and — while Redis is not available — not at all, the replica's own cap
 * standing alone. Redis here is a stand-in whose answers the test chooses; test/store/shared-mailbox-slots.test.ts
 * runs the semaphore against real Redis.
 */

const { logger } = captureLogs('error');
const settings = { replicas: 2, redisTimeoutMs: 50, longestAttemptMs: 1_000 };
const tenant = { connectionId: 'c1', account: 'ana@contoso.example', customerId: 'cust' };
const op = { integration: 'outlook_mail', operation: 'messages.list' };

function vendor(sharedInFlight: boolean): VendorProfile {
  const limits: AccountLimits = { group: 'outlook_mailbox', maxInFlight: 2, sharedInFlight };
  return { name: 'Microsoft', integrations: ['outlook_mail'], classify: () => undefined, limits: () => limits, quotaCooldownMs: 60_000 };
}

/**
 * A Redis whose acquire script answers `taken` (1 or 0), or whose breaker is open; it counts the scripts it runs, and
 * its subscriber connection (duplicate()) lets a test announce a release naming a waiter, as another replica's would.
 */
function fakeRedis(options: { available: boolean; taken?: number; fails?: boolean }) {
  const asked = { acquires: 0, releases: 0, leaves: 0 };
  let waiting = '';
  const subscriber = Object.assign(new EventEmitter(), {
    status: 'ready',
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(1),
  });
  const client = {
    status: 'ready',
    eval: (script: string, _keys: number, ...args: unknown[]) => {
      if (script === ACQUIRE_SCRIPT) {
        asked.acquires++;
        waiting = String(args[6]); // after the 3 keys: limit, lease, ticket, then the token
      }
      if (script === RELEASE_SCRIPT) asked.releases++;
      if (script === LEAVE_SCRIPT) asked.leaves++;
      return Promise.resolve(script === ACQUIRE_SCRIPT ? (options.taken ?? 1) : 1);
    },
    duplicate: () => {
      setImmediate(() => subscriber.emit('ready'));
      return subscriber;
    },
    once: () => client,
  };
  const redis: SharedRedis = {
    client: client as unknown as Redis,
    health: {
      available: () => options.available,
      state: () => (options.available ? 'closed' : 'open'),
      call: (command) => (options.fails ? Promise.reject(new RedisUnavailableError('timed out')) : command()),
      stats: () => ({ timedOut: 0, shortCircuited: 0 }),
    },
  };
  /** Another replica released a slot, and the waiter that last asked for one is first in line. */
  const announceRelease = () => subscriber.emit('message', RELEASED_CHANNEL, `some-other-ticket ${waiting}`);
  return { redis, asked, announceRelease };
}

/** Lets queued callbacks and I/O run until `done()` holds. */
async function until(done: () => boolean) {
  for (let i = 0; i < 1_000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

const soon = () => ({ deadline: AbortSignal.timeout(2_000), deadlineAt: Date.now() + 2_000 });

describe('the shared in-flight cap in the account guard', () => {
  it('when Redis gives a slot, then the call holds it beside its replica slot and gives both back', async () => {
    const { redis, asked } = fakeRedis({ available: true });
    const guard = createAccountGuard([vendor(true)], settings, redis, logger);
    const { deadline, deadlineAt } = soon();
    const release = await guard.beforeAttempt(op, tenant, deadline, deadlineAt);
    expect(asked).toEqual({ acquires: 1, releases: 0, leaves: 0 });
    release();
    expect(asked).toEqual({ acquires: 1, releases: 1, leaves: 0 });
  });

  it("when Redis' breaker is open or a command fails, then the replica's own cap stands alone: two in flight, a third waits", async () => {
    for (const options of [{ available: false }, { available: true, fails: true }]) {
      const { redis } = fakeRedis(options);
      const guard = createAccountGuard([vendor(true)], settings, redis, logger);
      const { deadline, deadlineAt } = soon();
      const held = [await guard.beforeAttempt(op, tenant, deadline, deadlineAt), await guard.beforeAttempt(op, tenant, deadline, deadlineAt)];
      let thirdIn = false;
      const third = guard.beforeAttempt(op, tenant, deadline, deadlineAt).then((release) => ((thirdIn = true), release));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(thirdIn).toBe(false);
      held[0]!();
      (await third)();
      held[1]!();
    }
  });

  it("when every shared slot stays taken past the call's deadline, then the wait ends as the replica's own does, its place in Redis' queue is given up, and the replica slot is given back", async () => {
    const { redis, asked } = fakeRedis({ available: true, taken: 0 });
    const guard = createAccountGuard([vendor(true)], settings, redis, logger);
    const waited = await guard.beforeAttempt(op, tenant, AbortSignal.timeout(100), Date.now() + 100).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(DeadlineExceededError);
    // Its first try, one more once subscribed, then it waited for a release (its re-check is 250 ms away): no polling.
    expect(asked.acquires).toBe(2);
    expect(asked.leaves).toBe(1);

    // Both replica slots are free again: with Redis back to giving slots, two calls get in at once.
    const { redis: giving } = fakeRedis({ available: true });
    Object.assign(redis.client, { eval: giving.client.eval.bind(giving.client) });
    const { deadline, deadlineAt } = soon();
    const both = await Promise.all([guard.beforeAttempt(op, tenant, deadline, deadlineAt), guard.beforeAttempt(op, tenant, deadline, deadlineAt)]);
    for (const release of both) release();
  });

  it('when another replica announces a release while a call waits for a shared slot, then the call tries again at once and gets it', async () => {
    const options = { available: true, taken: 0 };
    const { redis, asked, announceRelease } = fakeRedis(options);
    const guard = createAccountGuard([vendor(true)], settings, redis, logger);
    const { deadline, deadlineAt } = soon();
    let admitted = false;
    const call = guard.beforeAttempt(op, tenant, deadline, deadlineAt).then((release) => ((admitted = true), release));
    await until(() => asked.acquires === 2); // queued, and subscribed
    options.taken = 1;
    announceRelease();
    await until(() => admitted);
    expect(asked.acquires).toBe(3);
    (await call)();
  });

  it('when a profile keeps its cap per replica (sharedInFlight absent), then Redis is never asked for a slot', async () => {
    const { redis, asked } = fakeRedis({ available: true });
    const guard = createAccountGuard([vendor(false)], settings, redis, logger);
    const { deadline, deadlineAt } = soon();
    (await guard.beforeAttempt(op, tenant, deadline, deadlineAt))();
    expect(asked).toEqual({ acquires: 0, releases: 0, leaves: 0 });
  });

  it("when the profile is Google's, then Gmail's in-flight cap is shared across replicas and Calendar has none", () => {
    const google = googleVendor(testConfig().upstream);
    expect(google.limits('google_gmail')).toMatchObject({ group: 'google_gmail', maxInFlight: 10, sharedInFlight: true });
    expect(google.limits('google_calendar').maxInFlight).toBeUndefined();
  });
});
