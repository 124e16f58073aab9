import type { Redis } from 'ioredis';
import type { Logger } from '../logger';
import type { Db } from '../store/db';
import type { RedisHealth } from '../store/redis-health';
import type { AccessChange, AccessEvents } from './access-events';
import { createConversationBudget } from './conversation-budget';
import { type Policies, createPolicyCache } from './policy-cache';
import { type PolicyGuard, createPolicyGuard } from './policy-guard';
import { CONVERSATION_WINDOW_S } from './policy-rules';
import { type PolicyStore, createPolicyStore } from './policy-store';
import { type ServiceKeyStore, createServiceKeyStore } from './service-key-store';
import { type ServiceKeys, createServiceKeys } from './service-keys';

/** Service keys and policies, wired once (from createApp): stores, each replica's copies, the policy gate. */
export interface Access {
  keyStore: ServiceKeyStore;
  keys: ServiceKeys;
  policyStore: PolicyStore;
  policies: Policies;
  policyGuard: PolicyGuard;
  /** Something changed through this replica's admin API: apply it here now, and tell the other replicas. */
  changed(change: AccessChange): Promise<void>;
  /** Writes the last-use times still in memory. */
  close(): Promise<void>;
}

export function createAccess(deps: {
  db: Db;
  settings: { cacheTtlMs: number; conversationTtlS: number; redisTimeoutMs: number };
  redis: { client: Redis; health: RedisHealth } | null;
  events?: AccessEvents;
  logger: Logger;
}): Access {
  const { settings, logger } = deps;
  const keyStore = createServiceKeyStore(deps.db);
  const keys = createServiceKeys({ store: keyStore, ttlMs: settings.cacheTtlMs, logger });
  const policyStore = createPolicyStore(deps.db);
  const policies = createPolicyCache({ store: policyStore, ttlMs: settings.cacheTtlMs });
  const budget = createConversationBudget({
    ttlS: settings.conversationTtlS,
    windowS: CONVERSATION_WINDOW_S,
    redis: deps.redis,
    redisTimeoutMs: settings.redisTimeoutMs,
    logger,
  });
  const applyLocally = async (change: AccessChange) => {
    if (change.kind === 'policy') policies.invalidate(change.customerId);
    else await keys.reload();
  };
  deps.events?.onRemoteChange((change) => {
    applyLocally(change).catch((err: unknown) => logger.warn({ err }, 'access events: could not re-read service keys; the cache TTL bounds staleness'));
  });
  return {
    keyStore,
    keys,
    policyStore,
    policies,
    policyGuard: createPolicyGuard({ policies, budget, logger }),
    async changed(change) {
      deps.events?.publish(change);
      await applyLocally(change);
    },
    close: () => keys.close(),
  };
}
