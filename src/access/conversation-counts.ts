/**
 * The conversation rules counted in this process: the same decisions as the Redis script in
 * conversation-budget.ts, for a Hub without Redis (the embedded database is one process's) and as the fallback
 * while Redis is unavailable. Memory is bounded: the oldest-started conversations and agent windows make room.
 */

export interface ConversationLimits {
  /** Calls per (customer, conversation); null = not counted. */
  perConversation: number | null;
  /** Distinct conversations per (customer, agent) and window; null = not counted. */
  perAgentWindow: number | null;
}

export type Taken =
  | { ok: true }
  | { ok: false; rule: 'max_tool_calls_per_conversation'; used: number }
  | { ok: false; rule: 'max_conversations_per_agent_per_hour'; used: number; retryAfterMs: number };

export interface ConversationCounts {
  take(customerId: string, agentId: string, conversationId: string, limits: ConversationLimits): Taken;
}

/** Call counters kept at most (each key at most ~300 characters). */
const MAX_CONVERSATIONS = 100_000;
/** Conversation ids kept at most over every agent's window together. */
const MAX_OPENED = 200_000;

interface Calls {
  used: number;
  expiresAt: number;
}
interface Opened {
  ids: Set<string>;
  resetAt: number;
}

export function createLocalConversationCounts(options: { ttlMs: number; windowMs: number; now?: () => number }): ConversationCounts {
  const now = options.now ?? Date.now;
  const calls = new Map<string, Calls>();
  const windows = new Map<string, Opened>();
  let openedTotal = 0;

  const dropWindow = (key: string) => {
    const w = windows.get(key);
    if (w === undefined) return;
    openedTotal -= w.ids.size;
    windows.delete(key);
  };

  // Conversation ids hold no control characters, so a line feed separates the parts unambiguously.
  return {
    take(customerId, agentId, conversationId, limits) {
      const t = now();
      const callsKey = `${customerId}\n${conversationId}`;
      let counted = calls.get(callsKey);
      if (counted !== undefined && counted.expiresAt <= t) {
        calls.delete(callsKey);
        counted = undefined;
      }
      if (limits.perConversation !== null && counted !== undefined && counted.used >= limits.perConversation) {
        return { ok: false, rule: 'max_tool_calls_per_conversation', used: counted.used };
      }

      if (limits.perAgentWindow !== null) {
        const windowKey = `${customerId}\n${agentId}`;
        let w = windows.get(windowKey);
        if (w !== undefined && w.resetAt <= t) {
          dropWindow(windowKey);
          w = undefined;
        }
        if (w === undefined || !w.ids.has(conversationId)) {
          const opened = w?.ids.size ?? 0;
          if (opened >= limits.perAgentWindow) {
            return { ok: false, rule: 'max_conversations_per_agent_per_hour', used: opened, retryAfterMs: w!.resetAt - t };
          }
          if (w === undefined) {
            w = { ids: new Set(), resetAt: t + options.windowMs };
            windows.set(windowKey, w);
          }
          w.ids.add(conversationId);
          openedTotal++;
          while (openedTotal > MAX_OPENED && windows.size > 1) dropWindow(windows.keys().next().value!);
        }
      }

      if (limits.perConversation !== null) {
        if (counted === undefined) {
          if (calls.size >= MAX_CONVERSATIONS) calls.delete(calls.keys().next().value!);
          counted = { used: 0, expiresAt: 0 };
          calls.set(callsKey, counted);
        }
        counted.used++;
        counted.expiresAt = t + options.ttlMs;
      }
      return { ok: true };
    },
  };
}
