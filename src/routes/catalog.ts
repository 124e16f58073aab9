import type { RequestHandler } from 'express';
import { z } from 'zod';
import { keyAllowsTool, scopeRefusal } from '../access/key-scope';
import type { Policies } from '../access/policy-cache';
import { type EffectivePolicy, mayRun } from '../access/policy-rules';
import { sendError } from '../http/envelope';
import { requestLogger } from '../http/request-context';
import { sendJson } from '../http/respond';
import { toIssues, validationError } from '../http/validation';
import { storeUnavailable } from '../integrations/connections';
import type { Logger } from '../logger';
import type { CatalogEntry } from '../tools/catalog';
import type { ToolRegistry } from '../tools/registry';

const query = z.strictObject({ customer_id: z.guid('must be a UUID').optional(), agent_id: z.guid('must be a UUID').optional() });

/**
 * GET /api/internal/tools/ — the catalog; with `customer_id` (and `agent_id`) only the tools that caller may run
 * under its policies, and always only those the caller's service key may run. Without either, the catalog built
 * at start is sent as it is.
 */
export function catalogRoute(deps: { catalog: { tools: CatalogEntry[] }; tools: ToolRegistry; policies: Policies; logger: Logger }): RequestHandler {
  return async (req, res) => {
    const parsed = query.safeParse(req.query);
    if (!parsed.success) return sendError(res, validationError('Invalid query parameters', toIssues(parsed.error, 'query')));
    const principal = res.locals.service;
    const { customer_id: customer, agent_id: agent } = parsed.data;
    const restricted = principal?.kind === 'key' && principal.key.tools !== null;
    if (customer === undefined && agent === undefined && !restricted) return sendJson(res, 200, deps.catalog);
    if (customer === undefined && agent !== undefined) {
      return sendError(res, validationError('Invalid query parameters', [{ path: 'query.customer_id', message: 'is required with agent_id' }]));
    }
    let policy: EffectivePolicy | null = null;
    if (customer !== undefined) {
      const customerId = customer.toLowerCase();
      const agentId = agent?.toLowerCase() ?? null;
      const outOfScope = scopeRefusal(principal, customerId, agentId, undefined);
      if (outOfScope) return sendError(res, outOfScope);
      try {
        // An agent without its own policy gets the customer's (the empty agent id matches no agent policy).
        policy = await deps.policies.effective(customerId, agentId ?? '');
      } catch (err) {
        return sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
      }
    }
    const tools = deps.catalog.tools.filter((entry) => {
      const tool = deps.tools.get(entry.name)!;
      return keyAllowsTool(principal, tool) && mayRun(policy, tool);
    });
    sendJson(res, 200, { tools });
  };
}
