import type { EffectivePolicy } from '../access/policy-rules';
import type { ServicePrincipal } from '../access/service-keys';
import type { CatalogEntry } from '../tools/catalog';
import { visibleTools } from '../tools/catalog-view';
import type { ToolRegistry } from '../tools/registry';
import { mcpTools } from './tools';

/**
 * `tools/list`'s result, serialized once per catalog and scope: the tools a caller sees are decided by its key's
 * tool list and the policy in force (visibleTools, as GET /api/internal/tools decides them), and both are objects
 * that stay the same while they do not change — a service key's matcher, and the policy cache's effective
 * policy — so they key the cache; an edited policy or a reloaded key is a new object, and the old entry goes with
 * the garbage collector. A repeated list then costs a lookup, not a filter and a 36 KB JSON.stringify.
 */
export type ToolListFor = (principal: ServicePrincipal | undefined, policy: EffectivePolicy | null) => string;

export function createToolList(catalog: { tools: readonly CatalogEntry[] }, registry: ToolRegistry): ToolListFor {
  const byName = new Map(mcpTools(catalog).map((t) => [t.name, t]));
  const noPolicy = {};
  const everyTool = {};
  const cache = new WeakMap<object, WeakMap<object, string>>();
  return (principal, policy) => {
    const policyKey = policy ?? noPolicy;
    const keyKey = principal?.kind === 'key' && principal.key.tools !== null ? principal.key.tools : everyTool;
    let byKey = cache.get(policyKey);
    if (byKey === undefined) cache.set(policyKey, (byKey = new WeakMap()));
    let json = byKey.get(keyKey);
    if (json === undefined) {
      const tools = visibleTools(catalog, registry, principal, policy).map((entry) => byName.get(entry.name)!);
      byKey.set(keyKey, (json = JSON.stringify({ tools })));
    }
    return json;
  };
}
