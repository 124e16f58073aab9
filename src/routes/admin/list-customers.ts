import type { RequestHandler } from 'express';
import { z } from 'zod';
import { principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../http/validation';
import { storeUnavailable } from '../../integrations/connections';
import { type GrantPolicy, grantHealth } from '../../integrations/grant-health';
import { connectionState } from '../../integrations/status';
import type { CredentialRecord, CredentialStore } from '../../store/credential-store';
import type { CustomerDirectory } from '../../store/customer-directory';
import type { ToolRegistry } from '../../tools/registry';
import type { Logger } from '../../logger';

export const MAX_CUSTOMERS_PAGE = 100;
const params = z.object({});
const query = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_CUSTOMERS_PAGE).default(50),
  after: z.guid('must be a UUID').optional(),
});

/** One badge per connection: the worst of its status and its grant's health, in words an admin acts on. */
export type ConnectionHealth = 'connected' | 'expiring' | 'expired' | 'insufficient_scopes';

function healthOf(record: CredentialRecord, tools: ToolRegistry, grants: GrantPolicy): ConnectionHealth {
  const status = connectionState(record, tools).status;
  const grant = grantHealth(record, grants).health;
  if (status === 'expired' || grant === 'expired') return 'expired';
  if (grant === 'expiring') return 'expiring';
  return status;
}

const latest = (record: CredentialRecord) => Math.max(record.updatedAt.getTime(), record.lastRefreshedAt?.getTime() ?? 0, record.lastErrorAt?.getTime() ?? 0);

function summary(customerId: string, records: readonly CredentialRecord[], tools: ToolRegistry, grants: GrantPolicy) {
  return {
    customer_id: customerId,
    connections: records.map((r) => ({ integration: r.integration, user_id: r.userId, account_email: r.accountEmail, health: healthOf(r, tools, grants) })),
    last_activity_at: new Date(Math.max(...records.map(latest))).toISOString(),
  };
}

/**
 * GET /api/admin/customers?limit=&after= — the customers that have connections, with a health badge per
 * connection and when anything last happened to them (connected, refreshed, failed). A Hub admin pages through
 * all of them; a customer-scoped caller gets its own customer only (or none, before it connects anything).
 */
export function listCustomersRoute(deps: {
  directory: CustomerDirectory;
  store: CredentialStore;
  tools: ToolRegistry;
  grants: GrantPolicy;
  logger: Logger;
}): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid query parameters');
    if (!parsed.ok) {
      sendError(res, parsed.error);
      return;
    }
    const { limit, after } = parsed.query;
    const principal = principalOf(res);
    let page: { customerId: string; records: CredentialRecord[] }[];
    try {
      if (principal.kind === 'admin') {
        page = await deps.directory.page({ after: after?.toLowerCase() ?? null, limit });
      } else {
        const own = after === undefined || after.toLowerCase() < principal.customerId ? await deps.store.listForCustomer(principal.customerId) : [];
        page = own.length > 0 ? [{ customerId: principal.customerId, records: own }] : [];
      }
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
      return;
    }
    const customers = page.map((c) => summary(c.customerId, c.records, deps.tools, deps.grants));
    const next = principal.kind === 'admin' && page.length === limit ? page[page.length - 1]!.customerId : null;
    sendJson(res, 200, { customers, next_after: next });
  };
}
