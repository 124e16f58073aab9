import type { RequestHandler } from 'express';
import { z } from 'zod';
import { decodeCursor, listReceipts } from '../../audit/receipt-queries';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import { type ServiceKeyRouteDeps, adminOnly, idParam, keyNotFound } from './service-key-routes';
import type { Db } from '../../store/db';

const query = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(512).optional(),
});

/**
 * GET /api/admin/service-keys/{id}/receipts — the receipts recorded against the key alone, newest first: the calls it
 * made for customers outside its scope (and bodies naming no customer readably), which are in no customer's trail.
 * Keyset pagination as the customer's list; hub_admin only, as every service-key route.
 */
export function keyReceiptsRoute(deps: ServiceKeyRouteDeps & { db: Db }): RequestHandler {
  return async (req, res) => {
    const forbidden = adminOnly(res);
    if (forbidden) return sendError(res, forbidden);
    const parsed = parseParamsAndQuery({ params: idParam, query }, req, 'Invalid service key id or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const cursor = parsed.query.cursor === undefined ? null : decodeCursor(parsed.query.cursor);
    if (parsed.query.cursor !== undefined && cursor === null) {
      return sendError(
        res,
        hubError('VALIDATION_ERROR', 'Invalid cursor: pass next_cursor from the previous page unchanged', {
          details: { issues: [{ path: 'query.cursor', message: 'not a cursor this Hub made' }] },
        }),
      );
    }
    const id = parsed.params.id.toLowerCase();
    try {
      if ((await deps.access.keyStore.get(id)) === null) return sendError(res, keyNotFound());
      const page = await listReceipts(deps.db, { principal: `key:${id}` }, {}, { limit: parsed.query.limit, cursor });
      sendJson(res, 200, { service_key_id: id, receipts: page.receipts, next_cursor: page.nextCursor });
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
