import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';
import type { RedisHealth } from '../store/redis-health';

/**
 * `max_tool_calls_per_conversation`: calls counted per (customer, agent, conversation_id) — shared by every
 * replica through Redis when configured (one Lua script: read, refuse or count, extend the TTL), else in this
 * process. The count is forgotten HUB_CONVERSATION_BUDGET_TTL_S after the conversation's last call. When Redis is
 * unavailable (its breaker open, or slower than HUB_RATE_LIMIT_REDIS_TIMEOUT_MS), this replica counts in memory
 * instead: a budget then holds per replica, not globally, until Redis is back. A refused call is not counted.
 * Conversation ids are the agent's text: only their SHA-256 goes into a Redis key.
 */

export type Taken = { ok: true } | { ok: false; used: number };

export interface ConversationBudget {
  /** Counts one call, or says the budget is spent (`used` calls so far). Synchronous when counted in memory. */
  take(customerId: string, agentId: string, conversationId: string, limit: number): Taken | Promise<Taken>;
}

// KEYS[1] the conversation's counter. ARGV limit, ttl ms. Returns the count after this call, or -count when refused.
const TAKE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then return -used end
used = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return used
`;

interface TakeCommand {
  hubConversationTake(key: string, limit: number, ttlMs: number): Promise<number>;
}

/** Bounds memory of the in-process counters (each key at most ~330 characters); the oldest-started go first. */
const MAX_LOCAL_CONVERSATIONS = 100_000;

export function createConversationBudget(options: {
  ttlS: number;
  redis: { client: Redis; health: RedisHealth } | null;
  redisTimeoutMs: number;
  logger: Logger;
  now?: () => number;
}): ConversationBudget {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlS * 1000;
  const local = new Map<string, { used: number; expiresAt: number }>();
  // In Redis the conversation id is hashed (bounded keys, no agent text in Redis); in memory it is used as it is
  // (conversation ids hold no control characters, so a line feed separates the parts unambiguously).
  const redisKey = (customerId: string, agentId: string, conversationId: string) =>
    `hub:conv:{${customerId}}:${agentId}:${hash('sha256', conversationId, 'base64url')}`;

  const takeLocally = (customerId: string, agentId: string, conversationId: string, limit: number): Taken => {
    const key = `${customerId}\n${agentId}\n${conversationId}`;
    const t = now();
    const entry = local.get(key);
    if (entry !== undefined && entry.expiresAt > t) {
      if (entry.used >= limit) return { ok: false, used: entry.used };
      entry.used++;
      entry.expiresAt = t + ttlMs;
      return { ok: true };
    }
    // A new (or expired) conversation: the oldest-started one makes room when the map is full.
    local.delete(key);
    if (local.size >= MAX_LOCAL_CONVERSATIONS) local.delete(local.keys().next().value!);
    local.set(key, { used: 1, expiresAt: t + ttlMs });
    return { ok: true };
  };

  const shared = options.redis;
  if (shared) shared.client.defineCommand('hubConversationTake', { numberOfKeys: 1, lua: TAKE });
  const command = shared?.client as unknown as TakeCommand | undefined;

  const takeShared = async (customerId: string, agentId: string, conversationId: string, limit: number): Promise<Taken> => {
    try {
      const key = redisKey(customerId, agentId, conversationId);
      const n = await shared!.health.call(() => command!.hubConversationTake(key, limit, ttlMs), options.redisTimeoutMs);
      return n < 0 || n > limit ? { ok: false, used: Math.abs(n) } : { ok: true };
    } catch (err) {
      options.logger.debug({ err }, 'conversation budget: redis unavailable; counting in memory');
      return takeLocally(customerId, agentId, conversationId, limit);
    }
  };

  return {
    take(customerId, agentId, conversationId, limit) {
      return shared?.health.available() ? takeShared(customerId, agentId, conversationId, limit) : takeLocally(customerId, agentId, conversationId, limit);
    },
  };
}
