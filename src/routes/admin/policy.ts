import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Access } from '../../access';
import { effectivePolicy, policyRulesSchema } from '../../access/policy-rules';
import type { Precondition, StoredPolicy } from '../../access/policy-store';
import { toolEntryProblems } from '../../access/tool-match';
import { policyView } from '../../access/views';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery, toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { ToolRegistry } from '../../tools/registry';

/**
 * GET / PUT / DELETE /api/admin/customers/{customer_id}/policy and …/agents/{agent_id}/policy. Every answer
 * carries the policy's ETag; PUT without If-Match only creates (428 when one exists: fetch it first), PUT and
 * DELETE with If-Match act only while it still matches (412 otherwise) — two admins cannot silently overwrite
 * each other. A change is in force on every replica when the answer arrives (access events).
 */

export interface PolicyRouteDeps {
  access: Access;
  tools: ToolRegistry;
  logger: Logger;
}

const params = z.object({ customer_id: z.guid('must be a UUID'), agent_id: z.guid('must be a UUID').optional() });
const query = z.strictObject({});
const ETAG = /^(?:W\/)?"([\x21\x23-\x7e]*)"$/;

/** The body's `etag` as sent back by a caller that skipped the header: the tag without its quotes. */
const BARE_ETAG = /^[\x21\x23-\x7e]+$/;

/**
 * If-Match as RFC 9110 §13.1.1 reads it: `*`, or a list of entity tags (a weak one never matches: strong
 * comparison). The policy's body carries `etag` without the quotes the header has; a caller passing that value
 * back as is means the same tag, so a bare tag is read as the quoted one rather than refused as stale.
 */
function preconditionOf(header: string | undefined): Precondition {
  if (header === undefined) return null;
  if (header.trim() === '*') return 'any';
  const etags: string[] = [];
  for (const raw of header.split(',')) {
    const part = raw.trim();
    const m = ETAG.exec(part);
    if (m && !part.startsWith('W/')) etags.push(m[1]!);
    else if (!m && !part.startsWith('W/') && BARE_ETAG.test(part)) etags.push(part);
  }
  return { etags };
}

const etagHeader = (p: StoredPolicy) => ['ETag', `"${p.etag}"`];

export function policyRoute(deps: PolicyRouteDeps, action: 'get' | 'put' | 'delete'): RequestHandler {
  const show = async (res: Response, policy: StoredPolicy, status: number) => {
    const customer = policy.agentId === null ? policy : await deps.access.policyStore.get(policy.customerId, null);
    const effective = policy.agentId === null ? effectivePolicy(policy.rules, null) : effectivePolicy(customer?.rules ?? null, policy.rules);
    sendJson(res, status, policyView(policy, effective, deps.tools.list()), etagHeader(policy));
  };

  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id, agent_id or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const agentId = parsed.params.agent_id?.toLowerCase() ?? null;
    const forbidden = mayActOn(principalOf(res), customerId);
    if (forbidden) return sendError(res, forbidden);
    const store = deps.access.policyStore;
    const whose = agentId === null ? 'this customer' : 'this agent of the customer';
    try {
      if (action === 'get') {
        const policy = await store.get(customerId, agentId);
        if (policy === null) return sendError(res, hubError('RESOURCE_NOT_FOUND', `There is no policy for ${whose}`));
        return await show(res, policy, 200);
      }
      const precondition = preconditionOf(req.headers['if-match']);
      if (action === 'delete') {
        const deleted = await store.delete(customerId, agentId, precondition);
        if (!deleted.ok) {
          return sendError(
            res,
            deleted.problem === 'absent'
              ? hubError('RESOURCE_NOT_FOUND', `There is no policy for ${whose}`)
              : hubError('PRECONDITION_FAILED', 'The policy has changed (or is gone) since the ETag in If-Match; fetch it again'),
          );
        }
        await deps.access.changed({ kind: 'policy', customerId });
        return sendJson(res, 200, { customer_id: customerId, agent_id: agentId, deleted: true });
      }
      const body = policyRulesSchema.safeParse(req.body);
      if (!body.success) return sendError(res, validationError('Invalid policy', toIssues(body.error)));
      const problems = toolEntryProblems(body.data.enabled_tools ?? [], deps.tools);
      if (problems.length > 0) {
        return sendError(
          res,
          validationError(
            'Invalid policy',
            problems.slice(0, 20).map(([i, message]) => ({ path: `enabled_tools[${i}]`, message })),
          ),
        );
      }
      const written = await store.put(customerId, agentId, body.data, precondition);
      if (!written.ok) {
        return sendError(
          res,
          written.problem === 'exists'
            ? hubError(
                'PRECONDITION_REQUIRED',
                `${whose === 'this customer' ? 'This customer' : 'This agent'} already has a policy: send If-Match with its ETag (GET it first) to replace it`,
              )
            : hubError('PRECONDITION_FAILED', 'The policy has changed (or is gone) since the ETag in If-Match; fetch it again'),
        );
      }
      await deps.access.changed({ kind: 'policy', customerId });
      await show(res, written.policy, precondition === null ? 201 : 200);
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
