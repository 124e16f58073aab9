/**
 * At most `maxInFlight` requests in flight to one mailbox from this replica, shared by every call, so a
 * 50-message search (or five agents at once) never trips Gmail's per-user concurrency limit (429 "Too many
 * concurrent requests for user", Gmail "Resolve errors": a per-user concurrent request limit shared by all
 * clients; https://developers.google.com/workspace/gmail/api/guides/handle-errors).
 *
 * Waiting is fair across customers: a mailbox's waiters queue per tenant and a freed slot goes to the next
 * tenant in turn, so one customer's burst cannot starve another customer of the same mailbox; other mailboxes
 * are never affected. A wait ends when the call's deadline fires. The queue per mailbox is bounded.
 */

export type Admission = { ok: true; release: () => void } | { ok: false; reason: 'deadline' | 'queue_full' };

export interface MailboxGate {
  acquire(mailbox: string, tenant: string, signal: AbortSignal): Promise<Admission>;
  /** Requests in flight to `mailbox` now (tests, metrics). */
  inFlight(mailbox: string): number;
}

interface Waiter {
  tenant: string;
  grant: (release: () => void) => void;
}

interface Lane {
  active: number;
  waiting: number;
  /** Waiters per tenant, FIFO. */
  queues: Map<string, Waiter[]>;
  /** Tenants with waiters, in the order they get the next slots. */
  turn: string[];
}

export const MAX_WAITERS_PER_MAILBOX = 1000;

export function createMailboxGate(maxInFlight: number): MailboxGate {
  const lanes = new Map<string, Lane>();

  const next = (mailbox: string, lane: Lane) => {
    while (lane.active < maxInFlight && lane.turn.length > 0) {
      const tenant = lane.turn.shift()!;
      const queue = lane.queues.get(tenant)!;
      const waiter = queue.shift()!;
      if (queue.length > 0) lane.turn.push(tenant);
      else lane.queues.delete(tenant);
      lane.waiting--;
      lane.active++;
      waiter.grant(releaser(mailbox, lane));
    }
    if (lane.active === 0 && lane.waiting === 0) lanes.delete(mailbox);
  };

  const releaser = (mailbox: string, lane: Lane) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      lane.active--;
      next(mailbox, lane);
    };
  };

  return {
    acquire(mailbox, tenant, signal) {
      let lane = lanes.get(mailbox);
      if (!lane) {
        lane = { active: 0, waiting: 0, queues: new Map(), turn: [] };
        lanes.set(mailbox, lane);
      }
      if (signal.aborted) {
        next(mailbox, lane);
        return Promise.resolve({ ok: false, reason: 'deadline' });
      }
      if (lane.active < maxInFlight && lane.waiting === 0) {
        lane.active++;
        return Promise.resolve({ ok: true, release: releaser(mailbox, lane) });
      }
      if (lane.waiting >= MAX_WAITERS_PER_MAILBOX) return Promise.resolve({ ok: false, reason: 'queue_full' });
      const current = lane;
      return new Promise<Admission>((resolve) => {
        const waiter: Waiter = {
          tenant,
          grant: (release) => {
            signal.removeEventListener('abort', onAbort);
            resolve({ ok: true, release });
          },
        };
        const onAbort = () => {
          const queue = current.queues.get(tenant);
          const at = queue?.indexOf(waiter) ?? -1;
          if (!queue || at < 0) return; // already granted
          queue.splice(at, 1);
          current.waiting--;
          if (queue.length === 0) {
            current.queues.delete(tenant);
            current.turn.splice(current.turn.indexOf(tenant), 1);
          }
          next(mailbox, current);
          resolve({ ok: false, reason: 'deadline' });
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const queue = current.queues.get(tenant);
        if (queue) queue.push(waiter);
        else {
          current.queues.set(tenant, [waiter]);
          current.turn.push(tenant);
        }
        current.waiting++;
      });
    },
    inFlight: (mailbox) => lanes.get(mailbox)?.active ?? 0,
  };
}
