import { keyAllowsTool, scopeRefusal } from '../access/key-scope';
import type { Policies } from '../access/policy-cache';
import { type EffectivePolicy, mayRun } from '../access/policy-rules';
import type { ServicePrincipal } from '../access/service-keys';
import { type Result, fail, ok } from '../core/errors';
import { storeUnavailable } from '../integrations/store-unavailable';
import type { Logger } from '../logger';
import type { CatalogEntry } from './catalog';
import type { ToolRegistry } from './registry';

/**
 * The catalog as one caller sees it — GET /api/internal/tools and MCP's `tools/list` both go through here, so the
 * two lists cannot differ: a service key outside its customers or agent is refused (before any lookup); with a
 * customer, the policy in force for it (and the agent, when named) is read; the list holds the tools the key may
 * run that the policy could ever let run.
 */

/** The policy that filters a caller's catalog (null: none), or why the caller may not see it. */
export async function catalogPolicy(
  deps: { policies: Policies; logger: () => Logger },
  principal: ServicePrincipal | undefined,
  customerId: string | undefined,
  agentId: string | undefined,
): Promise<Result<EffectivePolicy | null>> {
  if (customerId === undefined) return ok(null);
  const outOfScope = scopeRefusal(principal, customerId, agentId ?? null, undefined);
  if (outOfScope) return fail(outOfScope);
  try {
    // An agent without its own policy gets the customer's (the empty agent id matches no agent policy).
    return ok(await deps.policies.effective(customerId, agentId ?? ''));
  } catch (err) {
    return fail(storeUnavailable(err, deps.logger()));
  }
}

/** The entries of the catalog this caller may run under that policy. */
export function visibleTools(
  catalog: { tools: readonly CatalogEntry[] },
  registry: ToolRegistry,
  principal: ServicePrincipal | undefined,
  policy: EffectivePolicy | null,
): CatalogEntry[] {
  return catalog.tools.filter((entry) => {
    const tool = registry.get(entry.name)!;
    return keyAllowsTool(principal, tool) && mayRun(policy, tool);
  });
}
