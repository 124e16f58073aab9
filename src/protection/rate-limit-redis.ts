import type { Redis } from 'ioredis';
import type { Charge, LimitScope, Limits } from './rate-limit-memory';

/**
 * The rate-limit charge shared by every replica: one Lua script, so the distinct-agent bound, the agent's and
 * the customer's limits are checked and charged atomically in one round trip, with the decisions of
 * rate-limit-memory.ts. The keys carry the customer in a hash tag (`{…}`), so all three live in one slot and the
 * script also runs on a Redis Cluster. Ids are UUIDs checked at the edge, so keys are bounded.
 */

// KEYS[1] the agent's counter, KEYS[2] the customer's counter, KEYS[3] the customer's set of agent ids.
// ARGV cost, agent points, customer points, distinct agents, window ms, agent id.
// Returns {0} when charged, else {scope (1 agent, 2 customer, 3 distinct agents), used, ms until the window ends}.
const CHARGE = `
local cost, windowMs = tonumber(ARGV[1]), tonumber(ARGV[5])
local function left(key)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then return windowMs end
  return ttl
end
local known = redis.call('SISMEMBER', KEYS[3], ARGV[6]) == 1
if not known then
  local n = redis.call('SCARD', KEYS[3])
  if n >= tonumber(ARGV[4]) then return {3, n, left(KEYS[3])} end
end
local agent = tonumber(redis.call('GET', KEYS[1]) or '0')
if agent + cost > tonumber(ARGV[2]) then return {1, agent, left(KEYS[1])} end
local customer = tonumber(redis.call('GET', KEYS[2]) or '0')
if customer + cost > tonumber(ARGV[3]) then return {2, customer, left(KEYS[2])} end
local function add(key, used)
  if used == 0 then redis.call('SET', key, cost, 'PX', windowMs) else redis.call('INCRBY', key, cost) end
end
add(KEYS[1], agent)
add(KEYS[2], customer)
if not known then
  redis.call('SADD', KEYS[3], ARGV[6])
  if redis.call('PTTL', KEYS[3]) < 0 then redis.call('PEXPIRE', KEYS[3], windowMs) end
end
return {0}
`;

type ChargeReply = [number, number?, number?];

interface ChargeCommand {
  hubRateLimitCharge(agentKey: string, customerKey: string, agentsKey: string, ...args: (string | number)[]): Promise<ChargeReply>;
}

const SCOPES: Record<number, LimitScope> = { 1: 'agent', 2: 'customer', 3: 'distinct_agents' };

export interface SharedLimits {
  charge(customerId: string, agentId: string, cost: number): Promise<Charge>;
}

export function createRedisLimits(redis: Redis, limits: Limits, prefix = 'hub:rl:'): SharedLimits {
  // defineCommand sends EVALSHA and falls back to EVAL once; redefining (a second app on this client) is harmless.
  redis.defineCommand('hubRateLimitCharge', { numberOfKeys: 3, lua: CHARGE });
  const command = redis as unknown as ChargeCommand;
  const limitOf: Record<LimitScope, number> = {
    agent: limits.agentPoints,
    customer: limits.customerPoints,
    distinct_agents: limits.agentsPerCustomer,
  };
  return {
    async charge(customerId, agentId, cost) {
      const base = `${prefix}{${customerId}}`;
      const [code, used = 0, msLeft = limits.windowMs] = await command.hubRateLimitCharge(
        `${base}:a:${agentId}`,
        `${base}:c`,
        `${base}:agents`,
        cost,
        limits.agentPoints,
        limits.customerPoints,
        limits.agentsPerCustomer,
        limits.windowMs,
        agentId,
      );
      if (code === 0) return { ok: true };
      const scope = SCOPES[code];
      if (!scope) throw new Error(`unexpected rate-limit reply from redis: ${code}`);
      const limit = limitOf[scope];
      return { ok: false, scope, limit, remaining: Math.max(0, limit - used), msBeforeNext: msLeft };
    },
  };
}
