import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import { actorOf, mayActOn, principalOf } from '../../auth/admin-access';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery, toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { Endpoint, Endpoints } from '../../webhooks/endpoints';
import { checkTarget } from '../../webhooks/target';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({});
const body = z.strictObject({ url: z.string().min(1).max(2048) });

export interface WebhookEndpointDeps {
  endpoints: Endpoints;
  allowPrivate: boolean;
  secretOverlapS: number;
  logger: Logger;
}

/** An endpoint as the admin API shows it (never its secret). */
export const webhookEndpointView = (e: Endpoint) => ({
  customer_id: e.customerId,
  url: e.url,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
  updated_by: e.updatedBy,
  previous_secret_valid_until: e.previousUntil !== null && e.previousUntil.getTime() > Date.now() ? e.previousUntil.toISOString() : null,
});

const notFound = () => hubError('RESOURCE_NOT_FOUND', 'This customer has no webhook endpoint; PUT one first');

/**
 * /api/admin/customers/{customer_id}/webhook — the customer's own receiver of connection webhooks:
 * GET it, PUT {url} (creating it answers 201 with its signing `secret`, shown this once), DELETE it, or POST
 * …/webhook/rotate-secret (a new secret, shown once; the previous one keeps signing for the overlap).
 * URLs are checked as deliveries are (https, no private or loopback address, resolved names included).
 */
export function webhookEndpointRoute(deps: WebhookEndpointDeps, action: 'get' | 'put' | 'delete' | 'rotate'): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, customerId);
    if (forbidden) return sendError(res, forbidden);
    try {
      await act(deps, res, action, customerId, actorOf(principal), req.body);
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}

async function act(
  deps: WebhookEndpointDeps,
  res: Response,
  action: 'get' | 'put' | 'delete' | 'rotate',
  customerId: string,
  actor: string | null,
  raw: unknown,
) {
  switch (action) {
    case 'get': {
      const endpoint = await deps.endpoints.get(customerId);
      return endpoint ? sendJson(res, 200, webhookEndpointView(endpoint)) : sendError(res, notFound());
    }
    case 'put': {
      const input = body.safeParse(raw);
      if (!input.success) return sendError(res, validationError('Invalid webhook endpoint', toIssues(input.error)));
      const problem = await checkTarget(input.data.url, deps.allowPrivate);
      if (problem !== null) return sendError(res, validationError('Webhook URL refused', [{ path: 'url', message: `the URL ${problem}` }]));
      const { endpoint, created } = await deps.endpoints.put(customerId, input.data.url, actor);
      requestLogger(deps.logger, res).info({ customer_id: customerId, created, actor }, 'webhook endpoint set');
      return created
        ? sendJson(res, 201, { ...webhookEndpointView(endpoint), secret: await deps.endpoints.secretOf(endpoint) })
        : sendJson(res, 200, webhookEndpointView(endpoint));
    }
    case 'delete': {
      const deleted = await deps.endpoints.remove(customerId);
      if (deleted) requestLogger(deps.logger, res).info({ customer_id: customerId, actor }, 'webhook endpoint removed');
      return sendJson(res, 200, { customer_id: customerId, deleted });
    }
    case 'rotate': {
      const endpoint = await deps.endpoints.rotate(customerId, actor, deps.secretOverlapS);
      if (endpoint === null) return sendError(res, notFound());
      requestLogger(deps.logger, res).info({ customer_id: customerId, actor }, 'webhook secret rotated');
      return sendJson(res, 200, { ...webhookEndpointView(endpoint), secret: await deps.endpoints.secretOf(endpoint) });
    }
    default: {
      const unreachable: never = action;
      throw new Error(`unknown action ${String(unreachable)}`);
    }
  }
}
