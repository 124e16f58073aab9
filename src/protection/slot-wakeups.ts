import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * "A slot is yours now", from whichever replica freed it, to the waiters of this process: one Redis pub/sub channel,
 * and per process (per Redis client) ONE subscriber connection, opened when a first waiter needs it. A message names
 * the tickets first in line (shared-slot-scripts.ts), so only their waiters wake; nothing is published while nobody
 * waits, so an uncontended mailbox costs no message at all. Best effort by design: a message lost while the
 * subscriber reconnects only means a waiter finds its slot at its next safety re-check (shared-mailbox-slots.ts).
 * Pub/sub channels are shared by every Redis database: tickets are random ids, so another database's messages name
 * none of ours.
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
  /** Listens for the announcements that name the ticket `token`. */
  listen(token: string): SlotListener;
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
  const waiting = new Map<string, Waiter>();
  let subscriber: Redis | undefined;
  let subscribed = false;
  let onSubscribed: Array<() => void> = [];

  const wake = (tokens: string) => {
    for (const token of tokens.split(' ')) {
      const waiter = waiting.get(token);
      if (!waiter) continue;
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
    connection.on('message', (channel: string, tokens: string) => {
      if (channel === RELEASED_CHANNEL) wake(tokens);
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
    listen(token) {
      const waiter: Waiter = { woken: false };
      waiting.set(token, waiter);
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
            const confirmed = () => {
              clearTimeout(timer);
              resolve(true);
            };
            // Not subscribed in time: this waiter re-checks on its timer, and forgets the callback (no pile-up).
            const timer = setTimeout(() => {
              onSubscribed = onSubscribed.filter((callback) => callback !== confirmed);
              resolve(subscribed);
            }, ms);
            onSubscribed.push(confirmed);
          });
        },
        close: () => waiting.delete(token),
      };
    },
  };
}
