/**
 * The rate-limit charge in one process: the same fixed windows and decisions as the Redis script
 * (rate-limit-redis.ts), for a Hub without Redis and as the insurance while Redis is unavailable.
 * A window starts at a key's first charge and lasts `windowMs`. A charge is checked against every limit before
 * anything is counted, so a rejected call costs nothing and an over-limit agent gives no points back.
 */

export type LimitScope = 'customer' | 'agent' | 'distinct_agents';

export interface Limits {
  customerPoints: number;
  agentPoints: number;
  /** Distinct agent ids one customer may use per window. */
  agentsPerCustomer: number;
  windowMs: number;
}

export type Charge = { ok: true } | { ok: false; scope: LimitScope; limit: number; remaining: number; msBeforeNext: number };

export interface ChargeLimits {
  charge(customerId: string, agentId: string, cost: number): Charge;
}

interface Window {
  used: number;
  resetAt: number;
}

interface AgentSet {
  ids: Set<string>;
  resetAt: number;
}

export function createMemoryLimits(limits: Limits, now: () => number = Date.now): ChargeLimits {
  const counters = new Map<string, Window>();
  const agentSets = new Map<string, AgentSet>();
  let nextSweep = 0;

  // Expired windows are dropped once per window length: each entry was made by a call, so this is O(1) per call.
  const sweep = (t: number) => {
    if (t < nextSweep) return;
    nextSweep = t + limits.windowMs;
    for (const [key, w] of counters) if (w.resetAt <= t) counters.delete(key);
    for (const [key, s] of agentSets) if (s.resetAt <= t) agentSets.delete(key);
  };
  const live = <W extends { resetAt: number }>(map: Map<string, W>, key: string, t: number): W | undefined => {
    const w = map.get(key);
    return w && w.resetAt > t ? w : undefined;
  };
  const over = (scope: LimitScope, limit: number, used: number, resetAt: number | undefined, t: number): Charge => ({
    ok: false,
    scope,
    limit,
    remaining: Math.max(0, limit - used),
    msBeforeNext: resetAt === undefined ? limits.windowMs : resetAt - t,
  });

  return {
    charge(customerId, agentId, cost) {
      const t = now();
      sweep(t);
      const agentKey = `${customerId}:${agentId}`;
      const agents = live(agentSets, customerId, t);
      if (agents && !agents.ids.has(agentId) && agents.ids.size >= limits.agentsPerCustomer) {
        return over('distinct_agents', limits.agentsPerCustomer, agents.ids.size, agents.resetAt, t);
      }
      const agent = live(counters, agentKey, t);
      if ((agent?.used ?? 0) + cost > limits.agentPoints) return over('agent', limits.agentPoints, agent?.used ?? 0, agent?.resetAt, t);
      const customer = live(counters, customerId, t);
      if ((customer?.used ?? 0) + cost > limits.customerPoints) {
        return over('customer', limits.customerPoints, customer?.used ?? 0, customer?.resetAt, t);
      }
      const resetAt = t + limits.windowMs;
      if (agents) agents.ids.add(agentId);
      else agentSets.set(customerId, { ids: new Set([agentId]), resetAt });
      if (agent) agent.used += cost;
      else counters.set(agentKey, { used: cost, resetAt });
      if (customer) customer.used += cost;
      else counters.set(customerId, { used: cost, resetAt });
      return { ok: true };
    },
  };
}
