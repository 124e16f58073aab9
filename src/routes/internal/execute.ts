import type { RequestHandler } from 'express';
import { sendError, sendSuccess } from '../../http/envelope';
import { holdRefusal } from '../../http/refusal-hold';
import { type RecordedExecuteDeps, executeRecorded } from '../../tools/recorded-execute';

/**
 * POST /api/internal/tools/execute/ — thin: the use case decides, this only speaks HTTP; the call is recorded
 * (metrics, span, audit receipt) after the answer is sent (src/tools/recorded-execute.ts). A call refused by a
 * rate limit before any work is held `refusalHoldMs` first (src/http/refusal-hold.ts).
 */
export function executeRoute(deps: RecordedExecuteDeps, refusalHoldMs: number): RequestHandler {
  return async (req, res) => {
    const l = res.locals;
    const recorded = await executeRecorded(deps, req.body, { reqId: l.reqId, fallbackRequestId: l.requestId, principal: l.service }, req.headers);
    const { execution } = recorded;
    l.traceId = recorded.traceId;
    l.tool = execution.tool;
    l.requestId = execution.requestId; // context.request_id, when the agent gave one
    if (execution.caller) {
      l.customerId = execution.caller.customerId;
      l.agentId = execution.caller.agentId;
      l.userId = execution.caller.userId;
    }
    const replay = execution.replay ?? false;
    if (!execution.ok && execution.refused && execution.error.code === 'RATE_LIMITED' && !(await holdRefusal(res, refusalHoldMs))) {
      recorded.finish(l.t0); // the caller left during the hold: the refusal is still recorded
      return;
    }
    if (execution.ok) sendSuccess(res, execution.tool, execution.value, execution.apiCalls, replay, execution.version);
    else sendError(res, execution.error, execution.apiCalls, replay, execution.version);
    recorded.finish(l.t0);
  };
}
