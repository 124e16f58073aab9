import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Policies } from '../../access/policy-cache';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { toIssues, validationError } from '../../core/validation';
import type { Logger } from '../../logger';
import type { CatalogEntry } from '../../tools/catalog';
import { catalogPolicy, visibleTools } from '../../tools/catalog-view';
import type { ToolRegistry } from '../../tools/registry';

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
    const policy = await catalogPolicy(
      { policies: deps.policies, logger: () => requestLogger(deps.logger, res) },
      principal,
      customer?.toLowerCase(),
      agent?.toLowerCase(),
    );
    if (!policy.ok) return sendError(res, policy.error);
    const tools = visibleTools(deps.catalog, deps.tools, principal, policy.value);
    sendJson(res, 200, { tools });
  };
}
