import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { decodeCursor, listReceipts } from '../../audit/receipt-queries';
import { ERROR_CODES, hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { Db } from '../../store/db';
import { userIdSchema } from '../../tools/execute-request';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const text = (max: number) => z.string().min(1).max(max);
const query = z.strictObject({
  agent_id: z.guid('must be a UUID').optional(),
  user_id: userIdSchema.optional(),
  conversation_id: text(255).optional(),
  tool: text(100).optional(),
  outcome: z.enum(['ok', 'error', ...ERROR_CODES]).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: text(512).optional(),
});

/**
 * GET /api/admin/customers/{customer_id}/receipts — the customer's audit receipts, newest first, filtered by
 * agent, end user, conversation, tool, outcome and time; `next_cursor` fetches the next page (keyset
 * pagination: receipts written meanwhile never shift or repeat a page).
 */
export function listReceiptsRoute(deps: { db: Db; logger: Logger }): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const forbidden = mayActOn(principalOf(res), customerId);
    if (forbidden) return sendError(res, forbidden);
    const q = parsed.query;
    const cursor = q.cursor === undefined ? null : decodeCursor(q.cursor);
    if (q.cursor !== undefined && cursor === null) {
      return sendError(
        res,
        hubError('VALIDATION_ERROR', 'Invalid cursor: pass next_cursor from the previous page unchanged', {
          details: { issues: [{ path: 'query.cursor', message: 'not a cursor this Hub made' }] },
        }),
      );
    }
    try {
      const page = await listReceipts(
        deps.db,
        customerId,
        {
          ...(q.agent_id !== undefined ? { agentId: q.agent_id.toLowerCase() } : {}),
          ...(q.user_id !== undefined ? { userId: q.user_id } : {}),
          ...(q.conversation_id !== undefined ? { conversationId: q.conversation_id } : {}),
          ...(q.tool !== undefined ? { tool: q.tool } : {}),
          ...(q.outcome !== undefined ? { outcome: q.outcome } : {}),
          ...(q.from !== undefined ? { from: new Date(q.from) } : {}),
          ...(q.to !== undefined ? { to: new Date(q.to) } : {}),
        },
        { limit: q.limit, cursor },
      );
      sendJson(res, 200, { customer_id: customerId, receipts: page.receipts, next_cursor: page.nextCursor });
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
