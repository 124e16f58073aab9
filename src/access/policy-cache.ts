import { type EffectivePolicy, type PolicyRules, effectivePolicy } from './policy-rules';
import type { PolicyStore } from './policy-store';

/**
 * Each replica's copy of the policies of the customers it serves, read one customer at a time (one query for the
 * customer's and all its agents' policies) and kept for HUB_ACCESS_CACHE_TTL_MS — or until an access event says
 * the customer's policies changed. A customer without policies is cached too, so the common case costs a map
 * lookup. When the database cannot be read, an expired copy is used rather than none; without any copy, the
 * call fails (a policy is never assumed absent). Which customers have any policy at all is known up front (one
 * small query, refreshed like the rest), so a customer without policies — most calls — costs no query, ever:
 * not even its first call, which keeps tools that need no database (hub_echo) free of one.
 */

export interface Policies {
  /** The rules in force for (customer, agent); null = no policy. Synchronous when the copy is fresh. */
  effective(customerId: string, agentId: string): EffectivePolicy | null | Promise<EffectivePolicy | null>;
  /** The customer's policies changed (here or on another replica): read them again on next use. */
  invalidate(customerId: string): void;
}

interface Entry {
  loadedAt: number;
  customer: PolicyRules | null;
  agents: ReadonlyMap<string, PolicyRules>;
  /** The customer-wide effective policy: what every agent without its own policy gets. */
  base: EffectivePolicy | null;
  /** Effective policies of agents with their own, merged on first use. */
  merged: Map<string, EffectivePolicy | null>;
}

/** Bounds memory: customers beyond it push the longest-cached out (they are read again when next used). */
const MAX_CUSTOMERS = 10_000;

export function createPolicyCache(deps: { store: PolicyStore; ttlMs: number; now?: () => number }): Policies {
  const now = deps.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<Entry>>();
  let generation = 0; // an invalidation while a read is in flight keeps that (maybe older) read out of the cache
  let withPolicies: Set<string> | undefined;
  let setLoadedAt = -Infinity;
  let setLoading: Promise<Set<string>> | undefined;
  const loadSet = () =>
    (setLoading ??= (async () => {
      try {
        const at = now();
        const known = new Set(await deps.store.customersWithPolicies());
        // Customers named by changes meanwhile stay in (a false "has policies" only costs one query).
        if (withPolicies) for (const c of pendingAdds) known.add(c);
        pendingAdds.clear();
        withPolicies = known;
        setLoadedAt = at;
        return known;
      } finally {
        setLoading = undefined;
      }
    })());
  const pendingAdds = new Set<string>();

  const load = (customerId: string): Promise<Entry> => {
    const inFlight = loading.get(customerId);
    if (inFlight) return inFlight;
    const started = generation;
    let promise: Promise<Entry> | undefined = undefined; // read in the IIFE's `finally`, once assigned
    promise = (async () => {
      try {
        const at = now();
        const rows = await deps.store.forCustomer(customerId);
        const customer = rows.find((r) => r.agentId === null)?.rules ?? null;
        const agents = new Map(rows.filter((r) => r.agentId !== null).map((r) => [r.agentId!, r.rules]));
        const entry: Entry = { loadedAt: at, customer, agents, base: effectivePolicy(customer, null), merged: new Map() };
        if (generation === started) {
          entries.delete(customerId);
          if (entries.size >= MAX_CUSTOMERS) entries.delete(entries.keys().next().value!);
          entries.set(customerId, entry);
        }
        return entry;
      } finally {
        if (loading.get(customerId) === promise) loading.delete(customerId);
      }
    })();
    loading.set(customerId, promise);
    return promise;
  };

  const resolve = (entry: Entry, agentId: string): EffectivePolicy | null => {
    const own = entry.agents.get(agentId);
    if (own === undefined) return entry.base;
    let merged = entry.merged.get(agentId);
    if (merged === undefined) {
      merged = effectivePolicy(entry.customer, own);
      entry.merged.set(agentId, merged);
    }
    return merged;
  };

  const reload = async (customerId: string, agentId: string, stale: Entry | undefined) => {
    try {
      return resolve(await load(customerId), agentId);
    } catch (err) {
      if (stale) return resolve(stale, agentId);
      throw err;
    }
  };

  const forCustomer = (customerId: string, agentId: string, known: Set<string>) => {
    if (!known.has(customerId)) return null;
    const entry = entries.get(customerId);
    if (entry !== undefined && now() - entry.loadedAt <= deps.ttlMs) return resolve(entry, agentId);
    return reload(customerId, agentId, entry);
  };

  return {
    effective(customerId, agentId) {
      if (withPolicies === undefined) return loadSet().then((known) => forCustomer(customerId, agentId, known));
      if (now() - setLoadedAt > deps.ttlMs) void loadSet().catch(() => {}); // refreshed in the background; failures keep the copy
      return forCustomer(customerId, agentId, withPolicies);
    },
    invalidate(customerId) {
      generation++;
      entries.delete(customerId);
      loading.delete(customerId); // a read already running may predate the change: the next call starts its own
      withPolicies?.add(customerId); // maybe it has policies now; a deletion is noticed at the next refresh
      pendingAdds.add(customerId);
    },
  };
}
