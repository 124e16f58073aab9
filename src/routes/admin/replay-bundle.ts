import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { receiptsOfConversation } from '../../audit/receipt-queries';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { Db } from '../../store/db';
import type { CatalogEntry } from '../../tools/catalog';

const params = z.object({ customer_id: z.guid('must be a UUID'), conversation_id: z.string().min(1).max(255) });
const query = z.strictObject({});
/** Receipts per bundle; a longer conversation is cut (and says so). */
export const MAX_BUNDLE_RECEIPTS = 1_000;

/**
 * GET /api/admin/customers/{customer_id}/conversations/{conversation_id}/replay-bundle — the replay
 * bundle as far as the Hub sees a conversation: its receipts in the order they were made, and the catalog
 * entries (input and output schemas) of each tool@version they used. A version this Hub no longer serves is
 * listed with `available: false`.
 */
export function replayBundleRoute(deps: { db: Db; logger: Logger; catalogEntry: (name: string, version: string) => CatalogEntry | undefined }): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or conversation_id');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const forbidden = mayActOn(principalOf(res), customerId);
    if (forbidden) return sendError(res, forbidden);
    let found;
    try {
      found = await receiptsOfConversation(deps.db, customerId, parsed.params.conversation_id, MAX_BUNDLE_RECEIPTS);
    } catch (err) {
      return sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
    if (found.receipts.length === 0) return sendError(res, hubError('RESOURCE_NOT_FOUND', 'No receipts for this conversation and customer'));
    const tools: Record<string, unknown> = {};
    for (const r of found.receipts) {
      if (r.tool === undefined || r.version === undefined) continue; // absent: the call named no tool this Hub knows
      const key = `${r.tool}@${r.version}`;
      if (key in tools) continue;
      const entry = deps.catalogEntry(r.tool, r.version);
      tools[key] = entry ? { available: true, ...entry } : { available: false, name: r.tool, version: r.version };
    }
    sendJson(res, 200, {
      customer_id: customerId,
      conversation_id: parsed.params.conversation_id,
      generated_at: new Date().toISOString(),
      receipts: found.receipts,
      truncated: found.truncated,
      tools,
    });
  };
}
