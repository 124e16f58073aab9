import type { AnyTool } from '../tools/types';
import { type EffectivePolicy, mayRun } from './policy-rules';
import type { StoredPolicy } from './policy-store';
import type { ServiceKeyRecord } from './service-key-store';

/** What the admin API shows of a service key (never its value, which only `create` returns, once). */
export function serviceKeyView(record: ServiceKeyRecord, pendingUseMs: number | undefined, now: number) {
  const stored = record.lastUsedAt?.getTime();
  const lastUsed = pendingUseMs !== undefined && (stored === undefined || pendingUseMs > stored) ? pendingUseMs : stored;
  const status = record.revokedAt !== null ? 'revoked' : record.expiresAt !== null && record.expiresAt.getTime() <= now ? 'expired' : 'active';
  return {
    id: record.id,
    name: record.name,
    customer_ids: record.customerIds ?? ('all' as const),
    agent_id: record.agentId,
    tools: record.tools,
    status,
    expires_at: record.expiresAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
    last_used_at: lastUsed === undefined ? null : new Date(lastUsed).toISOString(),
    revoked_at: record.revokedAt?.toISOString() ?? null,
  };
}

/**
 * A policy as the admin API shows it: its own rules, and what is in force with it (`effective`: for an agent
 * policy merged over the customer's, with defaults filled in) — and plainly whether that allows nothing at all.
 */
export function policyView(policy: StoredPolicy, effective: EffectivePolicy | null, tools: readonly AnyTool[]) {
  const runnable = tools
    .filter((t) => mayRun(effective, t))
    .map((t) => t.name)
    .sort();
  const deniesEverything = runnable.length === 0;
  return {
    customer_id: policy.customerId,
    agent_id: policy.agentId,
    scope: policy.agentId === null ? ('customer' as const) : ('agent' as const),
    rules: policy.rules,
    effective: effective!.rules,
    tools_allowed: runnable,
    denies_everything: deniesEverything,
    ...(deniesEverything ? { warning: 'This policy denies every tool: calls for this customer (or agent) all answer POLICY_DENIED' } : {}),
    etag: policy.etag,
    updated_at: policy.updatedAt.toISOString(),
  };
}
