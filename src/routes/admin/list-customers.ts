import type { RequestHandler } from 'express';
import { z } from 'zod';
import { principalOf } from '../../auth/admin-access';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import { type GrantPolicy, grantHealth } from '../../integrations/grant-health';
import { connectionState } from '../../integrations/status';
import type { CredentialRecord, CredentialStore } from '../../store/credential-store';
import { type CustomerDirectory, type CustomerEntry, type CustomerName, idPrefixRange } from '../../store/customer-directory';
import type { ToolRegistry } from '../../tools/registry';
import type { Logger } from '../../logger';
import { MAX_DISPLAY_NAME, customerText } from './customer';

export const MAX_CUSTOMERS_PAGE = 100;
const params = z.object({});
const query = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_CUSTOMERS_PAGE).default(50),
  after: z.guid('must be a UUID').optional(),
  q: customerText(MAX_DISPLAY_NAME).optional(),
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

function summary({ customerId, name, records }: CustomerEntry, tools: ToolRegistry, grants: GrantPolicy) {
  return {
    customer_id: customerId,
    display_name: name?.displayName ?? null,
    connections: records.map((r) => ({ integration: r.integration, user_id: r.userId, account_email: r.accountEmail, health: healthOf(r, tools, grants) })),
    // Naming a customer is something that happened to it too (and the only thing, for one named before connecting).
    last_activity_at: new Date(Math.max(...records.map(latest), name?.updatedAt.getTime() ?? 0)).toISOString(),
  };
}

/** Whether a customer-scoped caller's own customer matches the search, as the directory matches for an admin. */
function matches(customerId: string, name: CustomerName | null, search: string): boolean {
  const range = idPrefixRange(search);
  if (range !== null && customerId >= range[0] && customerId <= range[1]) return true;
  return name !== null && name.displayName.toLowerCase().includes(search.toLowerCase());
}

/**
 * GET /api/admin/customers?limit=&after=&q= — the customers that have connections or a display name, with the
 * name, a health badge per connection and when anything last happened to them (connected, refreshed, failed,
 * named). `q` keeps those whose name contains it (any case) or whose id starts with it. A Hub admin pages through
 * all of them; a customer-scoped caller gets its own customer only (or none, before it connects or is named).
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
    const { limit, after, q } = parsed.query;
    const principal = principalOf(res);
    let page: CustomerEntry[];
    try {
      if (principal.kind === 'admin') {
        page = await deps.directory.page({ after: after?.toLowerCase() ?? null, limit, search: q ?? null });
      } else {
        page = [];
        const customerId = principal.customerId;
        if (after === undefined || after.toLowerCase() < customerId) {
          const [records, name] = await Promise.all([deps.store.listForCustomer(customerId), deps.directory.nameOf(customerId)]);
          if ((records.length > 0 || name !== null) && (q === undefined || matches(customerId, name, q))) page = [{ customerId, name, records }];
        }
      }
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
      return;
    }
    const customers = page.map((c) => summary(c, deps.tools, deps.grants));
    const next = principal.kind === 'admin' && page.length === limit ? page[page.length - 1]!.customerId : null;
    sendJson(res, 200, { customers, next_after: next });
  };
}
