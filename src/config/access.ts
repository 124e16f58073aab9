import { type EnvOf, integer } from './variables';

/** Service keys and policies (src/access). */
export interface AccessConfig {
  cacheTtlMs: number;
  conversationTtlS: number;
}

export const accessVariables = {
  HUB_ACCESS_CACHE_TTL_MS: integer(30_000, 1_000, 600_000).describe(
    'Longest a replica trusts its in-memory copy of service keys and policies without re-reading them; changes reach every replica at once through Redis, this bounds staleness when an event is lost.',
  ),
  HUB_CONVERSATION_BUDGET_TTL_S: integer(86_400, 60, 2_592_000).describe(
    "A conversation's tool-call count (policy `max_tool_calls_per_conversation`) is forgotten after this many seconds without a call.",
  ),
};

export type AccessEnv = EnvOf<typeof accessVariables>;

export const accessSection = {
  variables: accessVariables,
  load: (e: AccessEnv): { access: AccessConfig } => ({
    access: { cacheTtlMs: e.HUB_ACCESS_CACHE_TTL_MS, conversationTtlS: e.HUB_CONVERSATION_BUDGET_TTL_S },
  }),
};
