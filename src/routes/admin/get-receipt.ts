import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { receiptsOfCall } from '../../audit/receipt-queries';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { Db } from '../../store/db';

const params = z.object({ customer_id: z.guid('must be a UUID'), call_id: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 hex digits') });
const query = z.strictObject({});
/** A call is rarely repeated more than a handful of times; the answer stays bounded whatever an agent did. */
const MAX_RECEIPTS_PER_CALL = 100;

/**
 * GET /api/admin/customers/{customer_id}/receipts/{call_id} — the receipts of one call: the call_id is
 * deterministic over tool@version, inputs and request_id, so a retry and its idempotent replay share it; they
 * come oldest first.
 */
export function getReceiptRoute(deps: { db: Db; logger: Logger }): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or call_id');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const forbidden = mayActOn(principalOf(res), customerId);
    if (forbidden) return sendError(res, forbidden);
    let receipts;
    try {
      receipts = await receiptsOfCall(deps.db, customerId, parsed.params.call_id, MAX_RECEIPTS_PER_CALL);
    } catch (err) {
      return sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
    if (receipts.length === 0)
      return sendError(res, hubError('RESOURCE_NOT_FOUND', 'No receipt with this call_id for this customer (receipts are kept HUB_AUDIT_RETENTION_DAYS)'));
    sendJson(res, 200, { call_id: parsed.params.call_id, receipts });
  };
}
