import type { RequestHandler } from 'express';
import { z } from 'zod';
import { actorOf, mayActOn, principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { PARSE_OPTIONS, parseParamsAndQuery, toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { PolicyStore, StoredPolicy } from '../../access/policy-store';
import type { CustomerDirectory, CustomerName } from '../../store/customer-directory';
import type { Endpoints } from '../../webhooks/endpoints';
import { webhookEndpointView } from './webhook-endpoint';

export const MAX_DISPLAY_NAME = 100;
/**
 * What a display name may not hold: control characters (C0, DEL, C1), line and paragraph separators, and the
 * bidirectional overrides and isolates that would make a name render as a different one ("Trojan Source").
 */
const UNSAFE_TEXT = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Text an admin types to name or find a customer: trimmed, NFC, bounded, printable. */
export const customerText = (max: number) =>
  z
    .string()
    .transform((s) => s.normalize('NFC').trim())
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .max(max, `must be at most ${max} characters`)
        .refine((s) => !UNSAFE_TEXT.test(s), 'must not contain control characters or bidirectional overrides'),
    );

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({});
const body = z.strictObject({ display_name: customerText(MAX_DISPLAY_NAME).nullable() });

export interface CustomerRouteDeps {
  directory: CustomerDirectory;
  endpoints: Endpoints;
  policies: PolicyStore;
  logger: Logger;
}

/** The customer's own policy first, then its agents' in id order. */
const byAgent = (a: StoredPolicy, b: StoredPolicy) => (a.agentId === null ? -1 : b.agentId === null ? 1 : a.agentId < b.agentId ? -1 : 1);

const view = (customerId: string, name: CustomerName | null) => ({
  customer_id: customerId,
  display_name: name?.displayName ?? null,
  display_name_updated_at: name?.updatedAt.toISOString() ?? null,
  display_name_updated_by: name?.updatedBy ?? null,
});

/**
 * GET /api/admin/customers/{customer_id} — what the Hub keeps about a customer itself: its display name, its
 * webhook endpoint (null when it has none: an empty state, not a 404, so a console can show any customer without
 * a failed request) and which policies it has (its own, its agents'). Every UUID is a customer; one without any
 * answers with nulls and an empty list.
 * PUT {display_name} sets the name (null removes it); a customer-scoped token names only its own customer.
 */
export function customerRoute(deps: CustomerRouteDeps, action: 'get' | 'put'): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, customerId);
    if (forbidden) return sendError(res, forbidden);
    try {
      if (action === 'get') {
        const [name, endpoint, policies] = await Promise.all([
          deps.directory.nameOf(customerId),
          deps.endpoints.get(customerId),
          deps.policies.forCustomer(customerId),
        ]);
        return sendJson(res, 200, {
          ...view(customerId, name),
          webhook_endpoint: endpoint ? webhookEndpointView(endpoint) : null,
          policies: policies.sort(byAgent).map((p) => ({ agent_id: p.agentId, etag: p.etag, updated_at: new Date(p.updatedAt).toISOString() })),
        });
      }
      const input = body.safeParse(req.body, PARSE_OPTIONS);
      if (!input.success) return sendError(res, validationError('Invalid customer', toIssues(input.error)));
      const actor = actorOf(principal);
      const name = await deps.directory.setName(customerId, input.data.display_name, actor);
      // Who renamed whom (never the name itself in the log: it may be a person's or a company's name).
      requestLogger(deps.logger, res).info({ customer_id: customerId, actor, display_name_set: name !== null }, 'customer display name changed');
      return sendJson(res, 200, view(customerId, name));
    } catch (err) {
      return sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
