import type { RequestHandler } from 'express';
import { sendError, sendSuccess } from '../http/envelope';
import { type ExecuteDeps, executeTool } from '../tools/execute';

/** POST /api/internal/tools/execute/ — thin: the use case decides, this only speaks HTTP. */
export function executeRoute(deps: ExecuteDeps): RequestHandler {
  return async (req, res) => {
    const execution = await executeTool(deps, req.body, { reqId: res.locals.reqId, fallbackRequestId: res.locals.requestId });
    res.locals.tool = execution.tool;
    res.locals.requestId = execution.requestId; // context.request_id, when the agent gave one
    const replay = execution.replay ?? false;
    if (execution.ok) sendSuccess(res, execution.tool, execution.value, execution.apiCalls, replay);
    else sendError(res, execution.error, execution.apiCalls, replay);
  };
}
