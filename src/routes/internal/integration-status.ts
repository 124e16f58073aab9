import type { RequestHandler } from 'express';
import { z } from 'zod';
import { keyAllowsTool, scopeRefusal } from '../../access/key-scope';
import type { Policies } from '../../access/policy-cache';
import { mayRun } from '../../access/policy-rules';
import { sendError } from '../../http/envelope';
import { sendJson } from '../../http/respond';
import { requestLogger } from '../../http/request-context';
import type { Logger } from '../../logger';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { GrantPolicy } from '../../integrations/grant-health';
import type { SetupUrlFor } from '../../integrations/setup-url';
import { describeCapabilities, describeIntegrations } from '../../integrations/status';
import type { CapabilityDefaults } from '../../store/capability-defaults';
import type { CredentialStore } from '../../store/credential-store';
import { userIdSchema } from '../../tools/execute-request';
import type { ToolRegistry } from '../../tools/registry';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({ user_id: userIdSchema.optional(), agent_id: z.guid('must be a UUID').optional() });

/**
 * GET /api/internal/integrations/status/{customer_id}/ — what is connected, and what the agent can run with it:
 * `tools_available` leaves out what the caller's service key may not run, and with `agent_id` also what that
 * agent's (or else the customer's) policy does not allow.
 */
export function integrationStatusRoute(deps: {
  store: CredentialStore;
  tools: ToolRegistry;
  setupUrlFor: SetupUrlFor;
  /** What the Hub knows of Google's rules for its grants (HUB_GOOGLE_PUBLISHING_STATUS). */
  grants: GrantPolicy;
  policies: Policies;
  /** The customers' default provider per capability: what `capabilities.*.resolves_to` weighs when both are connected. */
  defaults: Pick<CapabilityDefaults, 'get'>;
  logger: Logger;
}): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) {
      sendError(res, parsed.error);
      return;
    }
    const caller = { customerId: parsed.params.customer_id.toLowerCase(), userId: parsed.query.user_id ?? null };
    const agentId = parsed.query.agent_id?.toLowerCase() ?? null;
    const principal = res.locals.service;
    const outOfScope = scopeRefusal(principal, caller.customerId, agentId, undefined);
    if (outOfScope) {
      sendError(res, outOfScope);
      return;
    }
    let records;
    let policy = null;
    let capabilities;
    try {
      records = await deps.store.resolveAll(caller.customerId, caller.userId);
      if (agentId !== null) policy = await deps.policies.effective(caller.customerId, agentId);
      capabilities = await describeCapabilities(records, async (capability) => (await deps.defaults.get(caller.customerId, capability))?.provider ?? null);
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
      return;
    }
    const integrations = describeIntegrations(records, caller, deps.tools, deps.setupUrlFor, deps.grants);
    for (const status of Object.values(integrations)) {
      status.tools_available = status.tools_available.filter((name) => {
        const tool = deps.tools.get(name)!;
        return keyAllowsTool(principal, tool) && mayRun(policy, tool);
      });
    }
    sendJson(res, 200, { customer_id: caller.customerId, user_id: caller.userId, integrations, capabilities });
  };
}
