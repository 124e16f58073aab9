import type { RequestHandler } from 'express';
import { z } from 'zod';
import { actorOf, mayActOn, principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import type { Disconnect } from '../../integrations/disconnect';
import { INTEGRATION_IDS } from '../../core/integrations';
import type { Logger } from '../../logger';
import { userIdSchema } from '../../tools/execute-request';

const params = z.object({
  customer_id: z.guid('must be a UUID'),
  integration: z.enum(INTEGRATION_IDS, { error: `must be one of ${INTEGRATION_IDS.join(', ')}` }),
});
const query = z.strictObject({ user_id: userIdSchema.optional() });

/**
 * DELETE /api/admin/customers/{customer_id}/integrations/{integration}?user_id= — revokes the grant at its vendor
 * where the vendor allows it (Google; Microsoft cannot: `revoke_skipped: unsupported`) and forgets the connection (the end user's own with user_id, else the customer-wide one). Idempotent.
 */
export function deleteIntegrationRoute(deps: { disconnect: Disconnect; logger: Logger }): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id, integration or query parameters');
    if (!parsed.ok) {
      sendError(res, parsed.error);
      return;
    }
    const target = { customerId: parsed.params.customer_id.toLowerCase(), userId: parsed.query.user_id ?? null, integration: parsed.params.integration };
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, target.customerId);
    if (forbidden) {
      sendError(res, forbidden);
      return;
    }
    const result = await deps.disconnect(target, requestLogger(deps.logger, res), actorOf(principal));
    if (!result.ok) {
      sendError(res, result.error);
      return;
    }
    sendJson(res, 200, {
      customer_id: target.customerId,
      user_id: target.userId,
      integration: target.integration,
      disconnected: result.value.disconnected,
      revoked_at_vendor: result.value.revokedAtVendor,
      // The name predates Microsoft; kept for clients that read it, it says the same as revoked_at_vendor.
      revoked_at_google: result.value.revokedAtVendor,
      ...(result.value.revokeSkipped ? { revoke_skipped: result.value.revokeSkipped } : {}),
    });
  };
}
