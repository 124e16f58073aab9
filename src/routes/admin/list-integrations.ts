import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { describeConnections } from '../../integrations/connection-list';
import { storeUnavailable } from '../../integrations/connections';
import type { GrantPolicy } from '../../integrations/grant-health';
import type { SetupUrlFor } from '../../integrations/setup-url';
import type { Logger } from '../../logger';
import type { CredentialStore } from '../../store/credential-store';
import type { ToolRegistry } from '../../tools/registry';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({});

/** GET /api/admin/customers/{customer_id}/integrations — every connection of the customer, tokens excluded. */
export function listIntegrationsRoute(deps: {
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
    const customerId = parsed.params.customer_id.toLowerCase();
    const forbidden = mayActOn(principalOf(res), customerId);
    if (forbidden) {
      sendError(res, forbidden);
      return;
    }
    let records;
    try {
      records = await deps.store.listForCustomer(customerId);
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
      return;
    }
    sendJson(res, 200, { customer_id: customerId, integrations: describeConnections(records, deps.tools, deps.setupUrlFor, deps.grants) });
  };
}
