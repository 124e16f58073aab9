import type { RequestHandler } from 'express';
import { z } from 'zod';
import { toolEntryProblems } from '../../access/tool-match';
import { serviceKeyView } from '../../access/views';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import { PRINTABLE } from '../../printable';
import { type ServiceKeyRouteDeps, adminOnly } from './service-key-routes';

/** POST /api/admin/service-keys — the key is in this answer and nowhere else, ever (only its hash is stored). */

/** The request body; openapi.yaml's ServiceKeyRequest is generated from it (src/codegen/openapi-routes.ts). */
export const serviceKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100).regex(PRINTABLE, 'must not contain control characters').describe('Who uses it, for people reading the list.'),
  customer_ids: z
    .union([z.literal('all'), z.array(z.guid('must be a UUID')).min(1).max(1000)])
    .describe('The customers the key may act for, or `all` (stated explicitly, never a default).'),
  agent_id: z.guid('must be a UUID').nullable().optional().describe('The only agent_id the key may present; absent or null = any.'),
  tools: z
    .array(z.string().max(80))
    .min(1, 'list at least one tool, or leave tools out for every tool')
    .max(200)
    .nullable()
    .optional()
    .describe('Tool allow-list: names (every version) or `name@major`; absent or null = every tool. Unknown tools are a VALIDATION_ERROR.'),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional().describe('In the future; absent or null = no expiry.'),
});

export function createServiceKeyRoute(deps: ServiceKeyRouteDeps): RequestHandler {
  const now = deps.now ?? Date.now;
  return async (req, res) => {
    const forbidden = adminOnly(res);
    if (forbidden) return sendError(res, forbidden);
    const body = serviceKeyBody.safeParse(req.body);
    if (!body.success) return sendError(res, validationError('Invalid service key', toIssues(body.error)));
    const { name, customer_ids: customers, agent_id: agentId = null, tools = null, expires_at: expiresAt = null } = body.data;
    const issues = tools === null ? [] : toolEntryProblems(tools, deps.tools).map(([i, message]) => ({ path: `tools[${i}]`, message }));
    if (expiresAt !== null && Date.parse(expiresAt) <= now()) issues.push({ path: 'expires_at', message: 'must lie in the future' });
    if (issues.length > 0) return sendError(res, validationError('Invalid service key', issues.slice(0, 20)));
    try {
      const { record, key } = await deps.access.keyStore.create({
        name,
        customerIds: customers === 'all' ? null : [...new Set(customers.map((c) => c.toLowerCase()))],
        agentId: agentId?.toLowerCase() ?? null,
        tools,
        expiresAt: expiresAt === null ? null : new Date(expiresAt),
      });
      await deps.access.changed({ kind: 'service_keys' });
      sendJson(res, 201, { ...serviceKeyView(record, undefined, now()), key });
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
