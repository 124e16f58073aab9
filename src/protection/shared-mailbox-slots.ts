import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import { RedisUnavailableError } from '../store/redis-health';
import type { SharedRedis } from './rate-limit';
import { ACQUIRE_SCRIPT, LEAVE_SCRIPT, RELEASE_SCRIPT, slotKeys } from './shared-slot-scripts';
import { RELEASED_CHANNEL, slotWakeups } from './slot-wakeups';

/**
 * At most `limit` requests in flight to one mailbox across ALL replicas, the waiters served in arrival order
 * whichever replica they wait on. The vendor counts concurrency per mailbox, not per client: Outlook allows 4
 * concurrent requests per app and mailbox (learn.microsoft.com/graph/throttling-limits#outlook-service-limits), Gmail
 * has a per-user concurrent request limit shared by all clients of the mailbox (429 "Too many concurrent requests for
 * user", developers.google.com/workspace/gmail/api/guides/handle-errors); a per-replica cap alone lets N replicas
 * send N times it.
 *
 * In Redis, per mailbox, a counting semaphore of leases and a FIFO of waiting tickets (shared-slot-scripts.ts): a try
 * takes a slot only when no earlier waiter is owed it, else it queues. A release names over pub/sub the waiter now
 * first in line, whose replica wakes it (slot-wakeups.ts), so a freed slot goes to the next waiter within a round
 * trip — no polling, no race a lucky replica wins, one wake-up per freed slot. A waiter still tries again every
 * `recheckMs` (a lost message, a slot whose holder died and whose lease ended), which also renews its ticket; the
 * ticket of a replica that died ends `ticketMs` later and the queue moves on. A lease ends at its release or, if its
 * holder died, `leaseMs` after it was taken — above any one attempt, so a live request never loses its slot.
 *
 * This gate comes second, behind the replica's own (mailbox-gate.ts, fair per customer), so a replica has at most
 * `limit` tickets or leases of a mailbox at once. When Redis is not available the caller goes on with that
 * in-process gate alone, as the budgets count in the replica then (sliding-quota.ts); no Redis command waits longer
 * than `redisTimeoutMs`.
 */

export type SharedAdmission = { ok: true; release: () => void } | { ok: false; reason: 'deadline' | 'unavailable' };

export interface SharedMailboxSlots {
  acquire(mailbox: string, signal: AbortSignal): Promise<SharedAdmission>;
}

export interface SharedSlotSettings {
  /** Slots per mailbox across replicas. */
  limit: number;
  /** How long a slot stays taken when it is never released (its holder died): above the longest attempt. */
  leaseMs: number;
  /** Longest one Redis command may take before the caller goes on without Redis. */
  redisTimeoutMs: number;
  /** How often a waiter tries again without being woken (and renews its ticket). */
  recheckMs?: number;
  /** How long a waiter's ticket holds its place unless renewed: several re-checks, so only a dead waiter loses it. */
  ticketMs?: number;
}

/** A safety net, not the way slots are handed over (that is the wake-up): a few tries a second per waiter. */
export const RECHECK_MS = 250;
/** Eight re-checks: a live replica renews well within it even through a slow Redis call and a busy event loop. */
export const TICKET_MS = 2_000;

/** A mailbox's id in Redis keys and messages: keys name no one, so the address is hashed (as the budgets do). */
export const sharedSlotId = (mailbox: string) => createHash('sha256').update(mailbox).digest('base64url').slice(0, 32);

export function createSharedMailboxSlots(settings: SharedSlotSettings, redis: SharedRedis, logger: Logger): SharedMailboxSlots {
  const { limit, leaseMs, redisTimeoutMs } = settings;
  const recheckMs = settings.recheckMs ?? RECHECK_MS;
  const ticketMs = settings.ticketMs ?? TICKET_MS;
  const client = redis.client;
  const run = <T>(command: () => Promise<T>) => redis.health.call(command, redisTimeoutMs);
  const unavailable = (err: unknown, what: string): SharedAdmission => {
    if (!(err instanceof RedisUnavailableError)) logger.warn({ err }, `a mailbox slot could not be ${what} in Redis; capping in this replica`);
    return { ok: false, reason: 'unavailable' };
  };
  const wakeups = slotWakeups(client, logger);

  return {
    async acquire(mailbox, signal) {
      const keys = slotKeys(sharedSlotId(mailbox));
      const token = randomUUID();
      // Listening before the first try: a release announced while a try is on its way wakes the waiter all the same.
      const listener = wakeups.listen(token);
      let subscribed = wakeups.isSubscribed();
      let queued = false;
      // Not awaited: the caller's deadline has fired. A lost ZREM only keeps the ticket until it ends (ticketMs).
      const leave = (reason: 'deadline' | 'unavailable'): SharedAdmission => {
        if (queued) {
          run(() => client.eval(LEAVE_SCRIPT, 3, ...keys, limit, token, RELEASED_CHANNEL)).catch((err: unknown) => unavailable(err, 'given up'));
        }
        return { ok: false, reason };
      };
      try {
        for (;;) {
          if (signal.aborted) return leave('deadline');
          if (!redis.health.available()) return leave('unavailable');
          let taken: number;
          try {
            taken = (await run(() => client.eval(ACQUIRE_SCRIPT, 3, ...keys, limit, leaseMs, ticketMs, token, RELEASED_CHANNEL))) as number;
          } catch (err) {
            // Had the script run after all, its lease or its ticket holds only until it ends.
            return unavailable(err, 'taken');
          }
          if (taken === 1) return { ok: true, release: releaser(keys, token) };
          queued = true;
          if (!subscribed) {
            // This process was not subscribed yet when the try left, so a release since may have gone unheard: once it
            // is, try again at once. From then on every release is heard.
            subscribed = await listener.subscribed(redisTimeoutMs);
            if (subscribed) continue;
          }
          await listener.next(recheckMs * (0.8 + Math.random() * 0.4), signal); // jittered: waiters' re-checks spread out
        }
      } finally {
        listener.close();
      }
    },
  };

  function releaser(keys: string[], token: string) {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Not awaited: the answer is on its way already. A lost release only holds the slot until its lease ends.
      run(() => client.eval(RELEASE_SCRIPT, 3, ...keys, limit, token, RELEASED_CHANNEL)).catch((err: unknown) => unavailable(err, 'released'));
    };
  }
}
