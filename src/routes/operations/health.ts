import type { RequestHandler } from 'express';
import type { Lifecycle } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import type { Db } from '../../store/db';
import { withTimeout } from '../../store/db';

/** What readiness needs of Redis: a PING, and the breaker's verdict (no PING into a Redis known to be stalled). */
export interface RedisCheck {
  client: { ping(): Promise<string> };
  health: { available(): boolean; state(): 'closed' | 'suspect' | 'open' };
}

const CHECK_TIMEOUT_MS = 1_000;

/**
 * Liveness: 200 while this process can serve, or could again once its dependencies are back (a database or
 * Redis outage is readiness's business, not a reason to restart). 503 only when it cannot recover by itself
 * (`lifecycle.failed`), so that a liveness probe or Docker's health check has it restarted.
 */
export function healthz(lifecycle: Lifecycle): RequestHandler {
  return (_req, res) => {
    if (lifecycle.failed) sendJson(res, 503, { status: 'failed', reason: lifecycle.failed });
    else sendJson(res, 200, { status: 'ok' });
  };
}

async function check(run: () => Promise<unknown>): Promise<{ ok: boolean; latency_ms: number; error?: string }> {
  const t0 = performance.now();
  try {
    await run();
    return { ok: true, latency_ms: Math.round(performance.now() - t0) };
  } catch (err) {
    // The reason is for operators; it names no host or credential (those live in the connection string).
    const reason = err instanceof Error && /timed out/i.test(err.message) ? 'timeout' : 'unreachable';
    return { ok: false, latency_ms: Math.round(performance.now() - t0), error: reason };
  }
}

async function pingRedis(redis: RedisCheck): Promise<unknown> {
  if (redis.health.state() === 'open') throw new Error('redis timed out (the breaker is open)');
  if (!redis.health.available()) throw new Error('redis is not connected');
  return withTimeout(redis.client.ping(), CHECK_TIMEOUT_MS, 'redis ping timed out');
}

/**
 * Ready = the database answers and the process is not shutting down. Redis down is a degradation, not a reason
 * to take the replica out of rotation (rate limits run from the in-memory insurance limiter, and writes with a
 * request_id answer SERVICE_UNAVAILABLE): the answer stays 200 with status "degraded" and the failed check.
 */
export function readyz(deps: { db: Db; redis: RedisCheck | null; lifecycle: Lifecycle }): RequestHandler {
  return async (_req, res) => {
    if (deps.lifecycle.failed) {
      sendJson(res, 503, { status: 'not_ready', checks: { database: { ok: false, latency_ms: 0, error: 'lost' } } });
      return;
    }
    if (deps.lifecycle.shuttingDown) {
      sendJson(res, 503, { status: 'shutting_down', checks: {} });
      return;
    }
    const [database, redis] = await Promise.all([check(() => deps.db.ping(CHECK_TIMEOUT_MS)), deps.redis ? check(() => pingRedis(deps.redis!)) : undefined]);
    const checks = redis ? { database, redis } : { database };
    const status = !database.ok ? 'not_ready' : redis && !redis.ok ? 'degraded' : 'ready';
    sendJson(res, database.ok ? 200 : 503, { status, checks });
  };
}
