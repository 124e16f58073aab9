import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { sendJson } from '../../http/respond';
import { toIssues, validationError } from '../../http/validation';
import type { ConnectLinks } from '../../integrations/connect-links';
import { INTEGRATION_IDS } from '../../integrations/integrations';
import { isAllowedReturnUrl } from '../../integrations/return-urls';
import { userIdSchema } from '../../tools/execute-request';

const body = z.strictObject({
  customer_id: z.guid('must be a UUID'),
  user_id: userIdSchema.nullable().optional(),
  integration: z.enum(INTEGRATION_IDS, { error: `must be one of ${INTEGRATION_IDS.join(', ')}` }),
  return_url: z.string().max(2048).nullable().optional(),
});

/**
 * POST /api/admin/connect-links — a signed link a person opens to connect one integration for one customer
 * (and optionally one end user), landing on `return_url` afterwards. Only return URLs on the allow-list are
 * accepted: a link is a redirect the Hub vouches for, so it must never lead anywhere an attacker chose.
 */
export function createConnectLinkRoute(deps: { connectLinks: ConnectLinks; returnUrlPrefixes: readonly string[] }): RequestHandler {
  return (req, res) => {
    const parsed = body.safeParse(req.body);
    if (!parsed.success) {
      sendError(res, validationError('Invalid connect-link request', toIssues(parsed.error)));
      return;
    }
    const { customer_id, user_id, integration, return_url } = parsed.data;
    const returnUrl = return_url ?? null;
    if (returnUrl !== null && !isAllowedReturnUrl(returnUrl, deps.returnUrlPrefixes)) {
      sendError(
        res,
        validationError('return_url is not allowed', [
          { path: 'return_url', message: 'must start with one of the URL prefixes on HUB_CONNECT_RETURN_URLS' },
        ]),
      );
      return;
    }
    const customerId = customer_id.toLowerCase();
    const forbidden = mayActOn(principalOf(res), customerId);
    if (forbidden) {
      sendError(res, forbidden);
      return;
    }
    const link = deps.connectLinks.create({ customerId, userId: user_id ?? null, integration, returnUrl });
    sendJson(res, 201, { url: link.url, expires_at: link.expiresAt.toISOString() });
  };
}
