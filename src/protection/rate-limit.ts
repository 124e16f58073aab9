import type { Redis } from 'ioredis';
import type { RateLimitConfig } from '../config';
import { type HubError, type Result, hubError, ok } from '../errors';
import type { Logger } from '../logger';
import { type RedisHealth, RedisUnavailableError } from '../store/redis-health';
import type { AnyTool } from '../tools/types';
import { type Charge, type ChargeLimits, type LimitScope, createMemoryLimits } from './rate-limit-memory';
import { createRedisLimits } from './rate-limit-redis';

/**
 * Per-customer and per-(customer, agent) limits, so one runaway agent cannot starve its siblings, and a bound on
 * the distinct agent ids one customer may use per window, so rotating the self-asserted agent_id does not
 * multiply the agent limit without end. With Redis the counters are shared by every replica (one Lua script,
 * one round trip); when Redis is not available — disconnected, or its breaker open — an in-memory insurance
 * limiter sized for this replica's share decides at once, and a charge never waits on Redis longer than
 * `redisTimeoutMs` (past it, the insurance decides that call). Without Redis, memory only.
 * Rejections cost no Google call and no database query: this runs before credentials are looked up.
 */

export type { LimitScope };

export interface RateLimiter {
  /** Charges the tool's cost to the agent and to the customer (and admits the agent id), or says which limit it hit. */
  consume(customerId: string, agentId: string, tool: AnyTool): Promise<Result<void>>;
  costOf(tool: AnyTool): number;
}

export interface SharedRedis {
  client: Redis;
  health: RedisHealth;
}

const REFUSAL_LOG_INTERVAL_MS = 10_000;

const WHO: Record<LimitScope, string> = {
  customer: 'this customer',
  agent: 'this agent of the customer',
  distinct_agents: 'distinct agent_ids of this customer',
};

/** IETF draft-ietf-httpapi-ratelimit-headers: the policy that was exceeded and what is left of it. */
function rejection(over: Exclude<Charge, { ok: true }>, windowS: number): HubError {
  const retryAfterS = Math.max(1, Math.ceil(over.msBeforeNext / 1000));
  const unit = over.scope === 'distinct_agents' ? 'agent ids' : 'points';
  return hubError('RATE_LIMITED', `Rate limit exceeded for ${WHO[over.scope]}: ${over.limit} ${unit} per ${windowS} s`, {
    details: { scope: over.scope, limit: over.limit, window_s: windowS },
    retryAfterS,
    headers: {
      'RateLimit-Policy': `"${over.scope}";q=${over.limit};w=${windowS}`,
      RateLimit: `"${over.scope}";r=${over.remaining};t=${retryAfterS}`,
    },
  });
}

export function createRateLimiter(config: RateLimitConfig, redis: SharedRedis | null, logger: Logger): RateLimiter {
  const limits = {
    customerPoints: config.customerPoints,
    agentPoints: config.agentPoints,
    agentsPerCustomer: config.agentsPerCustomer,
    windowMs: config.windowS * 1000,
  };
  const share = (points: number) => Math.max(1, Math.ceil(points / config.replicas));
  // Alone, this process holds the whole limit; as Redis' insurance, this replica's share of it.
  const local: ChargeLimits = redis
    ? createMemoryLimits({ ...limits, customerPoints: share(limits.customerPoints), agentPoints: share(limits.agentPoints) })
    : createMemoryLimits(limits);
  const shared = redis && { ...redis, limits: createRedisLimits(redis.client, limits) };
  let lastRefusalLog = -Infinity;

  const costOf = (tool: AnyTool) => config.toolCosts[tool.name] ?? (tool.sideEffects === 'writes' ? config.writeCost : config.readCost);

  const charge = async (customerId: string, agentId: string, cost: number): Promise<Charge> => {
    if (!shared) return local.charge(customerId, agentId, cost);
    try {
      // Rejects at once while Redis is disconnected or not trusted (counted as such in hub_redis_fallbacks_total).
      return await shared.health.call(() => shared.limits.charge(customerId, agentId, cost), config.redisTimeoutMs);
    } catch (err) {
      // Slow or disconnected: the breaker and the client log that. Redis refusing the script (READONLY, OOM…) is
      // not a stall the breaker sees: say so, at most every REFUSAL_LOG_INTERVAL_MS.
      const refused = !(err instanceof RedisUnavailableError) && shared.client.status === 'ready';
      if (refused && performance.now() - lastRefusalLog >= REFUSAL_LOG_INTERVAL_MS) {
        lastRefusalLog = performance.now();
        logger.error({ err }, 'redis refused the rate-limit charge; limiting in memory');
      }
      return local.charge(customerId, agentId, cost);
    }
  };

  return {
    costOf,
    async consume(customerId, agentId, tool) {
      const decision = await charge(customerId, agentId, costOf(tool));
      return decision.ok ? ok(undefined) : { ok: false, error: rejection(decision, config.windowS) };
    },
  };
}
