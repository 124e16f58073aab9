import type { Redis } from 'ioredis';
import type { RateLimitConfig } from '../config';
import { type HubError, type Result, hubError, ok } from '../core/errors';
import type { Logger } from '../logger';
import { type RedisHealth, RedisUnavailableError } from '../store/redis-health';
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

/**
 * What a charge is priced by: a tool, or another message priced like one (an MCP `tools/list` costs a read). Only
 * its name and whether it writes: the limits know no tool's other parts (every tool definition is one of these).
 */
export interface Chargeable {
  name: string;
  sideEffects: 'reads' | 'writes';
}

export interface RateLimiter {
  /** Charges the tool's cost to the agent and to the customer (and admits the agent id), or says which limit it hit. */
  consume(customerId: string, agentId: string, tool: Chargeable): Promise<Result<void>>;
  /** A call naming no tool this Hub has: charged to the agent and the customer as a read. */
  consumeUnknownTool(customerId: string, agentId: string): Promise<Result<void>>;
  /**
   * A call refused before it could be charged to a customer — a body whose tool, customer or agent cannot be read, a
   * key acting outside its scope — charged as a read to the credential that made it (`principal`: key:… or secret:…).
   */
  consumeRefused(principal: string): Promise<Result<void>>;
  costOf(tool: Chargeable): number;
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
function rejection(over: Exclude<Charge, { ok: true }>, windowS: number, credential = false): HubError {
  const retryAfterS = Math.max(1, Math.ceil(over.msBeforeNext / 1000));
  const unit = over.scope === 'distinct_agents' ? 'agent ids' : 'points';
  const scope = credential ? 'credential' : over.scope;
  const who = credential ? "this credential's refused calls" : WHO[over.scope];
  return hubError('RATE_LIMITED', `Rate limit exceeded for ${who}: ${over.limit} ${unit} per ${windowS} s`, {
    details: { scope, limit: over.limit, window_s: windowS },
    retryAfterS,
    headers: {
      'RateLimit-Policy': `"${scope}";q=${over.limit};w=${windowS}`,
      RateLimit: `"${scope}";r=${over.remaining};t=${retryAfterS}`,
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

  const costOf = (tool: Chargeable) => config.toolCosts[tool.name] ?? (tool.sideEffects === 'writes' ? config.writeCost : config.readCost);

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
    async consumeUnknownTool(customerId, agentId) {
      const decision = await charge(customerId, agentId, config.readCost);
      return decision.ok ? ok(undefined) : { ok: false, error: rejection(decision, config.windowS) };
    },
    async consumeRefused(principal) {
      // A bucket of its own per credential (bounded: key ids and secret fingerprints are the Hub's), one "agent".
      const decision = await charge(`credential:${principal}`, 'refused', config.readCost);
      return decision.ok ? ok(undefined) : { ok: false, error: rejection(decision, config.windowS, true) };
    },
  };
}
