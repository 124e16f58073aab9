import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * A breaker around Redis. ioredis' commandTimeout fails one command but keeps the connection "ready", so a Redis
 * that stops answering (a partition, a stalled proxy, a paused VM) would cost every caller the whole timeout for
 * as long as it lasts. Here:
 * - hot-path callers give Redis a short budget (`call(fn, timeoutMs)`) and, past it, go on without Redis. The
 *   first overrun trips a state every caller shares ("suspect": Redis may be unresponsive): the calls already
 *   waiting on Redis give up at that moment and the next ones do not try it, so one call per stall waits its
 *   budget, not every call in flight nor every call until someone notices. One PING, in the background, decides:
 * - answered within PROBE_TIMEOUT_MS (Redis was only slow, or this process was busy), the breaker closes again
 *   and the next call uses Redis; unanswered, the breaker opens and drops the connection: every command then
 *   fails at once (no offline queue), and late replies cannot be paired with the wrong command on a stream that
 *   may have lost bytes. ioredis reconnects on its own; once it is ready again, the next PING closes the breaker;
 * - the same PING every probe interval while closed (a heartbeat) lets an idle Hub notice too; while open, a
 *   reconnected client is PINGed at least every RECOVERY_PROBE_MS.
 * Writes that need Redis (idempotency records) check `available()`: a suspicion alone does not refuse them,
 * only an open breaker does — they wait at most for the probe's verdict, which drops the connection under them.
 */

export type RedisHealthState = 'closed' | 'suspect' | 'open';

export interface RedisHealth {
  /** True when Redis may be given a write's time: connected, and the breaker is not open. */
  available(): boolean;
  state(): RedisHealthState;
  /**
   * Runs a Redis command within `timeoutMs`. Rejects with RedisUnavailableError at once unless Redis is
   * connected and trusted (breaker closed), after `timeoutMs` (tripping the breaker to suspect), or as soon as
   * another call trips it while this one waits; other errors pass through.
   */
  call<T>(command: () => Promise<T>, timeoutMs: number): Promise<T>;
  /** Hot-path calls since start: those that waited their whole budget, and those that went on without Redis at once. */
  stats(): { timedOut: number; shortCircuited: number };
}

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Redis answers a PING in well under a millisecond; a quarter of a second without one is a stall, not load. */
export const PROBE_TIMEOUT_MS = 250;
/** While the breaker is not closed: how often a connected client is PINGed (at most; a shorter heartbeat wins). */
const RECOVERY_PROBE_MS = 500;

export function createRedisHealth(client: Redis, options: { logger: Logger; probeIntervalMs: number }): RedisHealth {
  const { logger } = options;
  let state: RedisHealthState = 'closed';
  let probing = false;
  let timedOut = 0;
  let shortCircuited = 0;
  // The calls waiting on Redis right now: told, all at once, when the breaker leaves "closed".
  const waiting = new Set<() => void>();
  const available = () => state !== 'open' && client.status === 'ready';

  const setState = (next: RedisHealthState) => {
    if (next === state) return;
    const wasClosed = state === 'closed';
    state = next;
    if (!wasClosed) return;
    for (const giveUp of waiting) giveUp();
    waiting.clear();
  };

  const ping = () =>
    within(client.ping(), PROBE_TIMEOUT_MS).then(
      (answer) => answer.in_time,
      () => false,
    );

  const probe = async () => {
    if (probing || client.status !== 'ready') return; // not connected: ioredis is reconnecting; the next tick probes
    probing = true;
    const answered = await ping();
    probing = false;
    if (answered) {
      if (state === 'open') logger.info('redis answering again; shared limits and idempotency records back in use');
      setState('closed');
      return;
    }
    if (state !== 'open')
      logger.warn({ probe_timeout_ms: PROBE_TIMEOUT_MS }, 'redis stopped answering; dropping the connection, limits run in memory until it answers');
    setState('open');
    schedule(); // the recovery pace from now on
    if (client.status === 'ready') client.disconnect(true); // reconnect: a fresh stream, not one that may have lost bytes
  };

  const suspect = () => {
    if (state !== 'closed') return;
    setState('suspect');
    schedule(); // should this probe find the client reconnecting, the next one comes at the recovery pace
    void probe();
  };

  // No listeners on the client (apps sharing one client in tests would pile them up): one unref'd timer that
  // stops by itself once the client has ended for good. While the breaker is not closed it ticks at least every
  // RECOVERY_PROBE_MS, so a Redis that answers again is back in use soon whatever the heartbeat's interval.
  let next: NodeJS.Timeout | undefined;
  const tick = () => {
    if (client.status === 'end') return;
    void probe();
    schedule();
  };
  function schedule() {
    clearTimeout(next);
    next = setTimeout(tick, state === 'closed' ? options.probeIntervalMs : Math.min(options.probeIntervalMs, RECOVERY_PROBE_MS));
    next.unref();
  }
  schedule();

  return {
    available,
    state: () => state,
    stats: () => ({ timedOut, shortCircuited }),
    async call(command, timeoutMs) {
      if (state !== 'closed' || client.status !== 'ready') {
        shortCircuited++;
        throw new RedisUnavailableError(state === 'closed' ? 'redis is not connected' : 'redis is not answering');
      }
      const answer = await within(command(), timeoutMs, waiting);
      if (answer.in_time) return answer.value;
      if (answer.tripped) {
        shortCircuited++;
        throw new RedisUnavailableError('redis is not answering (another call waited its budget)');
      }
      timedOut++;
      suspect();
      throw new RedisUnavailableError(`redis did not answer within ${timeoutMs} ms`);
    },
  };
}

type Timed<T> = { in_time: true; value: T } | { in_time: false; tripped: boolean };

/**
 * The promise's outcome, or "not in time" after `ms` — or as soon as the breaker trips, when the caller joins
 * `waiting` (a set, not a shared promise: reactions to a promise that rarely settles would pile up). When the
 * timer fires, the verdict waits for the I/O phase of the same event-loop turn (setImmediate): after a stall of
 * our own (GC, a busy loop), a reply that already arrived is read first, so a slow process is not mistaken for a
 * slow Redis.
 */
function within<T>(promise: Promise<T>, ms: number, waiting?: Set<() => void>): Promise<Timed<T>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      waiting?.delete(giveUp);
      outcome();
    };
    const giveUp = () => settle(() => resolve({ in_time: false, tripped: true }));
    const timer = setTimeout(() => setImmediate(() => settle(() => resolve({ in_time: false, tripped: false }))), ms);
    waiting?.add(giveUp);
    promise.then(
      (value) => settle(() => resolve({ in_time: true, value })),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
