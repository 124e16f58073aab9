import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../config';
import { type HubError, type Result, hubError, ok } from '../errors';
import type { AnyTool } from '../tools/types';

/**
 * Per-customer and per-(customer, agent) limits, so one runaway agent cannot starve its siblings. With Redis
 * the counters are shared by every replica (atomic Lua in rate-limiter-flexible); when Redis is unreachable an
 * in-memory insurance limiter sized for this replica's share keeps limiting, and nothing waits on Redis
 * (`rejectIfRedisNotReady`: a disconnected client goes straight to insurance). Without Redis, memory only.
 * Rejections cost no Google call and no database query: this runs before credentials are looked up.
 */

export type LimitScope = 'customer' | 'agent';

export interface RateLimiter {
  /** Consumes the tool's cost for the agent, then for the customer. */
  consume(customerId: string, agentId: string, tool: AnyTool): Promise<Result<void>>;
  costOf(tool: AnyTool): number;
}

interface Scoped {
  scope: LimitScope;
  points: number;
  limiter: RateLimiterAbstract;
}

function limiterFor(scope: LimitScope, points: number, config: RateLimitConfig, redis: Redis | null): RateLimiterAbstract {
  const duration = config.windowS;
  if (!redis) return new RateLimiterMemory({ keyPrefix: scope, points, duration });
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `hub:rl:${scope}`,
    points,
    duration,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `insurance:${scope}`, points: Math.max(1, Math.ceil(points / config.replicas)), duration }),
  });
}

/** IETF draft-ietf-httpapi-ratelimit-headers: the policy that was exceeded and what is left of it. */
function rejection(scoped: Scoped, res: RateLimiterRes, windowS: number): HubError {
  const retryAfterS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  const who = scoped.scope === 'customer' ? 'this customer' : 'this agent of the customer';
  return hubError('RATE_LIMITED', `Rate limit exceeded for ${who}: ${scoped.points} points per ${windowS} s`, {
    details: { scope: scoped.scope, limit: scoped.points, window_s: windowS },
    retryAfterS,
    headers: {
      'RateLimit-Policy': `"${scoped.scope}";q=${scoped.points};w=${windowS}`,
      RateLimit: `"${scoped.scope}";r=${Math.max(0, res.remainingPoints)};t=${retryAfterS}`,
    },
  });
}

export function createRateLimiter(config: RateLimitConfig, redis: Redis | null): RateLimiter {
  const agent: Scoped = { scope: 'agent', points: config.agentPoints, limiter: limiterFor('agent', config.agentPoints, config, redis) };
  const customer: Scoped = { scope: 'customer', points: config.customerPoints, limiter: limiterFor('customer', config.customerPoints, config, redis) };

  const costOf = (tool: AnyTool) => config.toolCosts[tool.name] ?? (tool.sideEffects === 'writes' ? config.writeCost : config.readCost);

  /** A RateLimiterRes rejection is "over the limit"; anything else is a store failure with no insurance — a bug here. */
  const take = async (scoped: Scoped, key: string, cost: number): Promise<RateLimiterRes | null> => {
    try {
      await scoped.limiter.consume(key, cost);
      return null;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err;
      throw err;
    }
  };

  return {
    costOf,
    async consume(customerId, agentId, tool) {
      const cost = costOf(tool);
      const agentKey = `${customerId}:${agentId}`;
      const overAgent = await take(agent, agentKey, cost);
      if (overAgent) return { ok: false, error: rejection(agent, overAgent, config.windowS) };
      const overCustomer = await take(customer, customerId, cost);
      if (overCustomer) {
        // The agent did not get to run: give its points back so a customer-wide squeeze doesn't also shrink it.
        await agent.limiter.reward(agentKey, cost).catch(() => undefined);
        return { ok: false, error: rejection(customer, overCustomer, config.windowS) };
      }
      return ok(undefined);
    },
  };
}
