import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * "A slot of this mailbox was freed", from whichever replica freed it, to the waiters of this process: one Redis
 * pub/sub channel, and per process (per Redis client) ONE subscriber connection, opened when a first waiter needs it.
 * The release script publishes only while someone waits (shared-slot-scripts.ts), so an uncontended mailbox costs
 * no message at all. Best effort by design: a message lost while the subscriber reconnects only means a waiter
 * finds the slot at its next safety re-check (shared-mailbox-slots.ts). Messages name a mailbox by its hash; pub/sub
 * channels are shared by every Redis database, so a message may name a mailbox of another database: it only wakes
 * a waiter for nothing (it tries again, and waits again).
 */

export const RELEASED_CHANNEL = 'hub:mailbox-slots:released';

/** One waiter's ear: what it hears about its mailbox while it waits. */
export interface SlotListener {
  /**
   * Resolves once a release of the mailbox was announced since the last call — at once if one came while the waiter
   * was asking Redis —, after `ms`, or when `signal` fires: the waiter then asks Redis again.
   */
  next(ms: number, signal: AbortSignal): Promise<void>;
  /** True once this process' subscriber is subscribed; opens it on first use and waits for it at most `ms`. */
  subscribed(ms: number): Promise<boolean>;
  /** Stops listening (the local map of waiters forgets it). */
  close(): void;
}

export interface SlotWakeups {
  /** True when a release published from now on reaches this process. */
  isSubscribed(): boolean;
  /** Listens for releases of the mailbox whose hashed id is `slot`. */
  listen(slot: string): SlotListener;
}

interface Waiter {
  woken: boolean;
  wake?: () => void;
}

const perClient = new WeakMap<Redis, SlotWakeups>();

/** The process' wake-ups for this client's Redis: every limit group's slots share one subscriber. */
export function slotWakeups(client: Redis, logger: Logger): SlotWakeups {
  let wakeups = perClient.get(client);
  if (!wakeups) {
    wakeups = openWakeups(client, logger);
    perClient.set(client, wakeups);
  }
  return wakeups;
}

function openWakeups(client: Redis, logger: Logger): SlotWakeups {
  const waiting = new Map<string, Set<Waiter>>();
  let subscriber: Redis | undefined;
  let subscribed = false;
  let onSubscribed: Array<() => void> = [];

  const wake = (slot: string) => {
    for (const waiter of waiting.get(slot) ?? []) {
      waiter.woken = true;
      waiter.wake?.();
    }
  };

  const open = () => {
    if (subscriber || client.status === 'end') return;
    // Subscribing needs a connection of its own. It subscribes at each 'ready' itself (not ioredis' auto-resubscribe,
    // which says nothing when it is done), so `subscribed` is true only while Redis has confirmed the subscription.
    const connection = client.duplicate({ enableOfflineQueue: true, lazyConnect: true, autoResubscribe: false });
    subscriber = connection;
    connection.on('error', (err) => logger.debug({ err }, 'mailbox slots: redis subscriber error'));
    connection.on('message', (channel: string, slot: string) => {
      if (channel === RELEASED_CHANNEL) wake(slot);
    });
    connection.on('close', () => (subscribed = false));
    connection.on('ready', () => {
      connection.subscribe(RELEASED_CHANNEL).then(
        () => {
          subscribed = true;
          for (const resolve of onSubscribed) resolve();
          onSubscribed = [];
        },
        (err: unknown) => logger.debug({ err }, 'mailbox slots: not subscribed to releases; waiters re-check on a timer'),
      );
    });
    connection.connect().catch(() => {}); // not connected yet: ioredis keeps trying, and 'ready' subscribes then
    // The subscriber lives as long as the client it was made from: when that one ends (shutdown), so does this.
    client.once('end', () => {
      subscribed = false;
      connection.disconnect();
    });
  };

  return {
    isSubscribed: () => subscribed,
    listen(slot) {
      const waiter: Waiter = { woken: false };
      let waiters = waiting.get(slot);
      if (!waiters) {
        waiters = new Set();
        waiting.set(slot, waiters);
      }
      waiters.add(waiter);
      return {
        next: (ms, signal) =>
          new Promise<void>((resolve) => {
            if (waiter.woken || signal.aborted) {
              waiter.woken = false;
              return resolve();
            }
            const done = () => {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              waiter.wake = undefined;
              waiter.woken = false;
              resolve();
            };
            const timer = setTimeout(done, ms);
            waiter.wake = done;
            signal.addEventListener('abort', done, { once: true });
          }),
        subscribed(ms) {
          open();
          if (subscribed || !subscriber) return Promise.resolve(subscribed);
          return new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(subscribed), ms);
            onSubscribed.push(() => {
              clearTimeout(timer);
              resolve(true);
            });
          });
        },
        close() {
          const set = waiting.get(slot);
          set?.delete(waiter);
          if (set?.size === 0) waiting.delete(slot);
        },
      };
    },
  };
}
