import { type HubError, hubError } from '../core/errors';
import type { ServicePrincipal } from './service-keys';
import type { ToolRef } from './tool-match';

/**
 * Null when the caller may make this call; else the FORBIDDEN to answer — decided from the key alone, before the
 * call is charged to any rate limit (a key scoped to one customer must not spend another's), before any lookup.
 * A configured HUB_SERVICE_SECRETS secret may act for anyone.
 */
export function scopeRefusal(principal: ServicePrincipal | undefined, customerId: string, agentId: string | null, tool: ToolRef | undefined): HubError | null {
  if (principal === undefined || principal.kind === 'secret') return null;
  const { key } = principal;
  if (key.customerIds !== null && !key.customerIds.has(customerId)) {
    return hubError('FORBIDDEN', 'This service key may not act for this customer', { details: { reason: 'customer_out_of_scope' } });
  }
  if (agentId !== null && key.agentId !== null && key.agentId !== agentId) {
    return hubError('FORBIDDEN', 'This service key is bound to another agent_id', { details: { reason: 'agent_out_of_scope' } });
  }
  if (tool !== undefined && key.tools !== null && !key.tools(tool)) {
    return hubError('FORBIDDEN', `This service key may not run ${tool.name}`, { details: { reason: 'tool_out_of_scope' } });
  }
  return null;
}

/** Whether a catalog entry is one this caller's key could run at all. */
export const keyAllowsTool = (principal: ServicePrincipal | undefined, tool: ToolRef) =>
  principal === undefined || principal.kind === 'secret' || principal.key.tools === null || principal.key.tools(tool);
