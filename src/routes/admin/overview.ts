import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { overview } from '../../audit/overview-queries';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { Db } from '../../store/db';

const params = z.object({});
const query = z.strictObject({
  window: z.enum(['1h', '24h']).default('1h'),
  customer_id: z.guid('must be a UUID').optional(),
});

/**
 * GET /api/admin/overview — calls per bucket, failed calls by error code, latency by tool (p50/p95 over the
 * window, p95 per bucket) and connections by status, over the last hour (1-minute buckets) or day (15-minute
 * buckets), from the audit trail. A Hub admin sees every customer or one (`customer_id`); a customer-scoped
 * token sees its own customer only (its customer_id is implied, another one is refused).
 */
export function overviewRoute(deps: { db: Db; logger: Logger; now?: () => number }): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const principal = principalOf(res);
    const asked = parsed.query.customer_id?.toLowerCase() ?? null;
    const customerId = asked ?? (principal.kind === 'customer' ? principal.customerId : null);
    if (customerId !== null) {
      const forbidden = mayActOn(principal, customerId);
      if (forbidden) return sendError(res, forbidden);
    }
    try {
      sendJson(res, 200, await overview(deps.db, { window: parsed.query.window, customerId, now: new Date(deps.now?.() ?? Date.now()) }));
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
