import type { RequestHandler } from 'express';
import { z } from 'zod';
import { mayActOn, principalOf } from '../../auth/admin-access';
import { decodeCursor, encodeCursor } from '../../audit/receipt-queries';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { Db } from '../../store/db';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({
  state: z.enum(['pending', 'delivered', 'failed']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(512).optional(),
});

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  target: string;
  state: string;
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  delivered_at: Date | null;
  log: unknown;
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/**
 * GET /api/admin/customers/{customer_id}/webhook-deliveries — the customer's webhook events, newest first, each
 * with its delivery state and every attempt (time, URL, HTTP status or error, duration). A customer's own token
 * sees the deliveries to its own endpoint; a Hub admin also those to HUB_WEBHOOK_URL. Bodies are not shown.
 */
export function webhookDeliveriesRoute(deps: { db: Db; logger: Logger }): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    const customerId = parsed.params.customer_id.toLowerCase();
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, customerId);
    if (forbidden) return sendError(res, forbidden);
    const q = parsed.query;
    const cursor = q.cursor === undefined ? null : decodeCursor(q.cursor);
    if (q.cursor !== undefined && cursor === null)
      return sendError(res, hubError('VALIDATION_ERROR', 'Invalid cursor: pass next_cursor from the previous page unchanged'));
    const sql: unknown[] = [customerId];
    const where = ['o.customer_id = $1'];
    if (principal.kind === 'customer') where.push("o.target = 'customer'");
    if (q.state !== undefined) where.push(`o.state = $${sql.push(q.state)}`);
    if (cursor !== null) where.push(`(o.created_at, o.id) < ($${sql.push(new Date(cursor.t))}::timestamptz, $${sql.push(cursor.id)}::bigint)`);
    let rows: DeliveryRow[];
    try {
      rows = await deps.db.query<DeliveryRow>(
        `SELECT o.id::text AS id, o.event_id::text AS event_id, o.event_type, o.target, o.state, o.attempts, o.created_at, o.next_attempt_at, o.delivered_at,
           COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'url', a.url, 'status', a.status, 'error', a.error, 'duration_ms', a.duration_ms) ORDER BY a.attempt)
                     FROM webhook_attempts a WHERE a.outbox_id = o.id), '[]'::json) AS log
         FROM webhook_outbox o WHERE ${where.join(' AND ')} ORDER BY o.created_at DESC, o.id DESC LIMIT ${q.limit + 1}`,
        sql,
      );
    } catch (err) {
      return sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    sendJson(res, 200, {
      customer_id: customerId,
      deliveries: page.map((r) => ({
        event_id: r.event_id,
        type: r.event_type,
        target: r.target,
        state: r.state,
        attempts: r.attempts,
        created_at: iso(r.created_at),
        next_attempt_at: r.state === 'pending' ? iso(r.next_attempt_at) : null,
        delivered_at: iso(r.delivered_at),
        log: (typeof r.log === 'string' ? JSON.parse(r.log) : r.log) as unknown[],
      })),
      next_cursor: rows.length > q.limit && last ? encodeCursor({ t: iso(last.created_at)!, id: last.id }) : null,
    });
  };
}
