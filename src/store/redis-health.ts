import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * A breaker around Redis. ioredis' commandTimeout fails one command but keeps the connection "ready", so a Redis
 * that stops answering (a partition, a stalled proxy, a paused VM) would cost every caller the whole timeout for
 * as long as it lasts. Here:
 * - hot-path callers give Redis a short budget (`call(fn, timeoutMs)`) and, past it, go on without Redis; the
 *   first overrun makes the breaker suspect Redis and send one PING. Suspicion alone changes nothing for other
 *   callers: one slow answer on a busy machine must not move every replica's limits into memory;
 * - a PING unanswered within PROBE_TIMEOUT_MS opens the breaker and drops the connection: every command then
 *   fails at once (no offline queue), and late replies cannot be paired with the wrong command on a stream that
 *   may have lost bytes. ioredis reconnects on its own; once it is ready again, the next PING closes the breaker;
 * - the same PING every probe interval while closed (a heartbeat) lets an idle Hub notice too.
 * `available()` is the one cheap check any Redis user makes before giving Redis a request's time.
 */

export type RedisHealthState = 'closed' | 'suspect' | 'open';

export interface RedisHealth {
  /** True when Redis may be given a request's time: connected, and the breaker is not open. */
  available(): boolean;
  state(): RedisHealthState;
  /**
   * Runs a Redis command within `timeoutMs`. Rejects at once with RedisUnavailableError when Redis is not
   * available, and with it after `timeoutMs` (starting a probe); other errors pass through.
   */
  call<T>(command: () => Promise<T>, timeoutMs: number): Promise<T>;
}

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Redis answers a PING in well under a millisecond; a quarter of a second without one is a stall, not load. */
export const PROBE_TIMEOUT_MS = 250;

export function createRedisHealth(client: Redis, options: { logger: Logger; probeIntervalMs: number }): RedisHealth {
  const { logger } = options;
  let state: RedisHealthState = 'closed';
  let probing = false;
  const available = () => state !== 'open' && client.status === 'ready';

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
      state = 'closed';
      return;
    }
    if (state !== 'open')
      logger.warn({ probe_timeout_ms: PROBE_TIMEOUT_MS }, 'redis stopped answering; dropping the connection, limits run in memory until it answers');
    state = 'open';
    if (client.status === 'ready') client.disconnect(true); // reconnect: a fresh stream, not one that may have lost bytes
  };

  const suspect = () => {
    if (state !== 'closed') return;
    state = 'suspect';
    void probe();
  };

  // No listeners on the client (apps sharing one client in tests would pile them up): one unref'd timer that
  // stops by itself once the client has ended for good.
  const heartbeat = setInterval(() => {
    if (client.status === 'end') clearInterval(heartbeat);
    else void probe();
  }, options.probeIntervalMs);
  heartbeat.unref();

  return {
    available,
    state: () => state,
    async call(command, timeoutMs) {
      if (!available()) throw new RedisUnavailableError('redis is not available');
      const answer = await within(command(), timeoutMs);
      if (answer.in_time) return answer.value;
      suspect();
      throw new RedisUnavailableError(`redis did not answer within ${timeoutMs} ms`);
    },
  };
}

type Timed<T> = { in_time: true; value: T } | { in_time: false };

/**
 * The promise's outcome, or "not in time" after `ms`. When the timer fires, the verdict waits for the I/O phase
 * of the same event-loop turn (setImmediate): after a stall of our own (GC, a busy loop), a reply that already
 * arrived is read first, so a slow process is not mistaken for a slow Redis.
 */
function within<T>(promise: Promise<T>, ms: number): Promise<Timed<T>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => setImmediate(() => !settled && resolve({ in_time: false })), ms);
    promise.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve({ in_time: true, value });
      },
      (err: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
