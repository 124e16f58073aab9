import { type ProcessesEnv, replicasOf } from './processes';
import { type EnvOf, integer, optionalString } from './variables';

export interface RateLimitConfig {
  windowS: number;
  /** Points per window for one customer, across every replica (Redis) — or per replica without Redis. */
  customerPoints: number;
  /** Points per window for one (customer, agent) pair, so one runaway agent cannot starve its siblings. */
  agentPoints: number;
  /** Distinct agent ids one customer may use per window (agent_id is self-asserted: this bounds rotating it). */
  agentsPerCustomer: number;
  /** The longest a charge waits for Redis before the in-memory insurance decides. */
  redisTimeoutMs: number;
  readCost: number;
  writeCost: number;
  /** Per-tool overrides of the read/write cost. */
  toolCosts: Record<string, number>;
  /** How long a refused call's 429 is held before it is sent (a flood's answers come no faster than this per connection). */
  refusalHoldMs: number;
  /** Replicas expected to share the limit: the in-memory insurance limiter (Redis down) allows 1/replicas of it. */
  replicas: number;
}

export interface IdempotencyConfig {
  ttlS: number;
}

/** What protects the Hub and its customers from callers: rate limits, and the replay of a write's first answer. */
export interface ProtectionConfig {
  rateLimit: RateLimitConfig;
  idempotency: IdempotencyConfig;
}

export const protectionVariables = {
  HUB_RATE_LIMIT_WINDOW_S: integer(60, 1, 3600).describe('Length of the rate-limit window in seconds.'),
  HUB_RATE_LIMIT_CUSTOMER_POINTS: integer(600, 1, 10_000_000).describe('Points one customer may spend per window, across every replica with Redis.'),
  HUB_RATE_LIMIT_AGENT_POINTS: integer(300, 1, 10_000_000).describe(
    'Points one (customer, agent) pair may spend per window, so one runaway agent cannot starve its siblings.',
  ),
  HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: integer(50, 1, 100_000).describe(
    'Distinct agent_ids one customer may use per window; a further new agent_id gets 429 RATE_LIMITED (scope distinct_agents).',
  ),
  HUB_RATE_LIMIT_REDIS_TIMEOUT_MS: integer(50, 1, 5_000).describe(
    'How long a rate-limit charge waits for Redis before this call is limited in memory and Redis is probed (ms).',
  ),
  HUB_RATE_LIMITED_HOLD_MS: integer(250, 0, 5_000).describe(
    'How long a call refused by a rate limit (execute or MCP) is held before its 429 is sent, so a caller that resends at once can ask only a few times a second per connection and other customers do not wait behind its refusals; 0 answers at once. A client that honours Retry-After never notices.',
  ),
  HUB_RATE_LIMIT_READ_COST: integer(1, 1, 1000).describe('Points a read tool call costs.'),
  HUB_RATE_LIMIT_WRITE_COST: integer(5, 1, 1000).describe('Points a write tool call costs.'),
  HUB_RATE_LIMIT_TOOL_COSTS: optionalString
    .transform((s, ctx) => {
      const costs: Record<string, number> = {};
      for (const entry of (s ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const m = /^([a-z][a-z0-9_]{0,63})=(\d{1,4})$/.exec(entry);
        if (!m || Number(m[2]) < 1) ctx.addIssue({ code: 'custom', message: `"${entry}": expected tool_name=points (points ≥ 1)` });
        else costs[m[1]!] = Number(m[2]);
      }
      return costs;
    })
    .describe('Per-tool costs overriding the read/write cost: `tool_name=points,...`.'),
  HUB_IDEMPOTENCY_TTL_S: integer(86_400, 60, 30 * 86_400).describe('How long the first answer of a write with a `request_id` is kept and replayed to retries.'),
};

export type ProtectionEnv = EnvOf<typeof protectionVariables>;

export const protectionSection = {
  variables: protectionVariables,
  load: (e: ProtectionEnv & ProcessesEnv): ProtectionConfig => ({
    rateLimit: {
      windowS: e.HUB_RATE_LIMIT_WINDOW_S,
      customerPoints: e.HUB_RATE_LIMIT_CUSTOMER_POINTS,
      agentPoints: e.HUB_RATE_LIMIT_AGENT_POINTS,
      agentsPerCustomer: e.HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER,
      redisTimeoutMs: e.HUB_RATE_LIMIT_REDIS_TIMEOUT_MS,
      readCost: e.HUB_RATE_LIMIT_READ_COST,
      writeCost: e.HUB_RATE_LIMIT_WRITE_COST,
      toolCosts: e.HUB_RATE_LIMIT_TOOL_COSTS,
      refusalHoldMs: e.HUB_RATE_LIMITED_HOLD_MS,
      replicas: replicasOf(e),
    },
    idempotency: { ttlS: e.HUB_IDEMPOTENCY_TTL_S },
  }),
};
