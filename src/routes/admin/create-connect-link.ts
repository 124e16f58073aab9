import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { sendJson } from '../../http/respond';
import { toIssues, validationError } from '../../core/validation';
import type { ConnectLinks } from '../../integrations/connect-links';
import { INTEGRATION_IDS } from '../../core/integrations';
import { isAllowedReturnUrl } from '../../integrations/return-urls';
import type { Logger } from '../../logger';
import { userIdSchema } from '../../tools/execute-request';

/** The request body; openapi.yaml's ConnectLinkRequest is generated from it (src/codegen/openapi-routes.ts). */
export const connectLinkBody = z.strictObject({
  customer_id: z.guid('must be a UUID'),
  user_id: userIdSchema.nullable().optional().describe('An end user of the customer; absent or null = the customer-wide connection.'),
  integration: z.enum(INTEGRATION_IDS, { error: `must be one of ${INTEGRATION_IDS.join(', ')}` }),
  return_url: z.string().max(2048).nullable().optional().describe('Where to send the person afterwards; must start with a prefix on HUB_CONNECT_RETURN_URLS.'),
  intent: z
    .enum(['connect', 'replace'], { error: 'must be connect or replace' })
    .optional()
    .describe(
      '`connect` (default): the link connects the integration where none is connected, or reconnects the same account (Google or Microsoft); completing it with another account is refused and changes nothing. `replace`: the link may also connect a different account of the same vendor in place of the connected one.',
    ),
});

/**
 * POST /api/admin/connect-links — a signed link a person opens to connect one integration for one customer
 * (and optionally one end user), landing on `return_url` afterwards. Only return URLs on the allow-list are
 * accepted: a link is a redirect the Hub vouches for, so it must never lead anywhere an attacker chose.
 * `intent: "replace"` is the only way to make a link that may connect a *different* Google account than the
 * one connected now; without it (and for every setup_url) the flow refuses such a switch.
 */
export function createConnectLinkRoute(deps: { connectLinks: ConnectLinks; returnUrlPrefixes: readonly string[]; logger: Logger }): RequestHandler {
  return (req, res) => {
    const parsed = connectLinkBody.safeParse(req.body);
    if (!parsed.success) {
      sendError(res, validationError('Invalid connect-link request', toIssues(parsed.error)));
      return;
    }
    const { customer_id, user_id, integration, return_url, intent } = parsed.data;
    const returnUrl = return_url ?? null;
    if (returnUrl !== null && !isAllowedReturnUrl(returnUrl, deps.returnUrlPrefixes)) {
      sendError(
        res,
        validationError('return_url is not allowed', [{ path: 'return_url', message: 'must start with one of the URL prefixes on HUB_CONNECT_RETURN_URLS' }]),
      );
      return;
    }
    const customerId = customer_id.toLowerCase();
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, customerId);
    if (forbidden) {
      sendError(res, forbidden);
      return;
    }
    const replace = intent === 'replace';
    const link = deps.connectLinks.create({ customerId, userId: user_id ?? null, integration, returnUrl, origin: 'admin', replace });
    // Links that may replace an account are what an audit of account changes starts from.
    deps.logger.info(
      {
        customer_id: customerId,
        user_id: user_id ?? null,
        integration,
        link_id: link.linkId,
        intent: replace ? 'replace' : 'connect',
        principal: principal.kind,
      },
      'connect link created',
    );
    sendJson(res, 201, { url: link.url, expires_at: link.expiresAt.toISOString(), intent: replace ? 'replace' : 'connect' });
  };
}
