import { hash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger';
import type { RedisHealth } from '../store/redis-health';
import { type ConversationCounts, type ConversationLimits, type Taken, createLocalConversationCounts } from './conversation-counts';

export type { ConversationLimits, Taken };

/**
 * The counted rules of a policy, for one call that names a conversation:
 * - `max_tool_calls_per_conversation`: calls per (customer, conversation_id), whichever agent makes them. The
 *   count is forgotten HUB_CONVERSATION_BUDGET_TTL_S after the conversation's last call.
 * - `max_conversations_per_agent_per_hour`: the distinct conversation ids one (customer, agent) calls with in a
 *   fixed hour that starts at its first; a conversation the agent already used this hour always passes it.
 * Shared by every replica through Redis when configured — one Lua script reads both, refuses or counts both,
 * so a call refused by either counts in neither — else in this process (the embedded database serves one
 * process only). When Redis is unavailable (its breaker open, or slower than HUB_RATE_LIMIT_REDIS_TIMEOUT_MS),
 * this replica counts in memory instead, as the rate limits do: the rules then hold per replica until Redis is
 * back. Conversation ids are the agent's text: only their SHA-256 goes into Redis.
 */

export interface ConversationBudget {
  /** Counts one call, or says which limit refuses it. Synchronous when counted in memory. */
  take(customerId: string, agentId: string, conversationId: string, limits: ConversationLimits): Taken | Promise<Taken>;
}

// KEYS[1] the conversation's call counter, KEYS[2] the agent's set of conversations this window (both in the
// customer's hash slot). ARGV: call limit (0 = none), counter TTL ms, conversation hash, conversation limit
// (0 = none), window ms. Returns {0, calls} when counted, {1, calls} or {2, conversations, ms left} when refused.
const TAKE = `
local budget = tonumber(ARGV[1])
local used = 0
if budget > 0 then
  used = tonumber(redis.call('GET', KEYS[1]) or '0')
  if used >= budget then return {1, used, 0} end
end
local cap = tonumber(ARGV[4])
if cap > 0 and redis.call('SISMEMBER', KEYS[2], ARGV[3]) == 0 then
  local opened = redis.call('SCARD', KEYS[2])
  local left = redis.call('PTTL', KEYS[2])
  if opened >= cap then return {2, opened, left} end
  redis.call('SADD', KEYS[2], ARGV[3])
  if left < 0 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
end
if budget > 0 then
  used = redis.call('INCR', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {0, used, 0}
`;

interface TakeCommand {
  hubConversationTake(calls: string, opened: string, budget: number, ttlMs: number, member: string, cap: number, windowMs: number): Promise<number[]>;
}

export function createConversationBudget(options: {
  ttlS: number;
  windowS: number;
  redis: { client: Redis; health: RedisHealth } | null;
  redisTimeoutMs: number;
  logger: Logger;
  now?: () => number;
}): ConversationBudget {
  const ttlMs = options.ttlS * 1000;
  const windowMs = options.windowS * 1000;
  const local: ConversationCounts = createLocalConversationCounts({ ttlMs, windowMs, now: options.now });

  const shared = options.redis;
  if (shared) shared.client.defineCommand('hubConversationTake', { numberOfKeys: 2, lua: TAKE });
  const command = shared?.client as unknown as TakeCommand | undefined;

  const takeShared = async (customerId: string, agentId: string, conversationId: string, limits: ConversationLimits): Promise<Taken> => {
    try {
      const member = hash('sha256', conversationId, 'base64url');
      const [verdict, used, left] = await shared!.health.call(
        () =>
          command!.hubConversationTake(
            `hub:conv:{${customerId}}:${member}`,
            `hub:convs:{${customerId}}:${agentId}`,
            limits.perConversation ?? 0,
            ttlMs,
            member,
            limits.perAgentWindow ?? 0,
            windowMs,
          ),
        options.redisTimeoutMs,
      );
      if (verdict === 1) return { ok: false, rule: 'max_tool_calls_per_conversation', used: used! };
      if (verdict === 2) return { ok: false, rule: 'max_conversations_per_agent_per_hour', used: used!, retryAfterMs: left! > 0 ? left! : windowMs };
      return { ok: true };
    } catch (err) {
      options.logger.debug({ err }, 'conversation budget: redis unavailable; counting in memory');
      return local.take(customerId, agentId, conversationId, limits);
    }
  };

  return {
    take(customerId, agentId, conversationId, limits) {
      if (limits.perConversation === null && limits.perAgentWindow === null) return { ok: true };
      return shared?.health.available() ? takeShared(customerId, agentId, conversationId, limits) : local.take(customerId, agentId, conversationId, limits);
    },
  };
}
