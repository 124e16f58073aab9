import type { RequestHandler } from 'express';
import { z } from 'zod';
import { sendError } from '../http/envelope';
import { sendJson } from '../http/respond';
import { requestLogger } from '../http/request-context';
import type { Logger } from '../logger';
import { parseParamsAndQuery } from '../http/validation';
import { storeUnavailable } from '../integrations/connections';
import type { GrantPolicy } from '../integrations/grant-health';
import type { SetupUrlFor } from '../integrations/setup-url';
import { describeIntegrations } from '../integrations/status';
import type { CredentialStore } from '../store/credential-store';
import { userIdSchema } from '../tools/execute-request';
import type { ToolRegistry } from '../tools/registry';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({ user_id: userIdSchema.optional() });

/** GET /api/internal/integrations/status/{customer_id}/ — what is connected, and what the agent can run with it. */
export function integrationStatusRoute(deps: {
  store: CredentialStore;
  tools: ToolRegistry;
  setupUrlFor: SetupUrlFor;
  /** What the Hub knows of Google's rules for its grants (HUB_GOOGLE_PUBLISHING_STATUS). */
  grants: GrantPolicy;
  logger: Logger;
}): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) {
      sendError(res, parsed.error);
      return;
    }
    const caller = { customerId: parsed.params.customer_id.toLowerCase(), userId: parsed.query.user_id ?? null };
    let records;
    try {
      records = await deps.store.resolveAll(caller.customerId, caller.userId);
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
      return;
    }
    sendJson(res, 200, {
      customer_id: caller.customerId,
      user_id: caller.userId,
      integrations: describeIntegrations(records, caller, deps.tools, deps.setupUrlFor, deps.grants),
    });
  };
}
