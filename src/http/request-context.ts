import type { RequestHandler } from 'express';
import { isValidRequestId } from '../tools/execute-request';

export interface Lifecycle {
  /** Set when SIGTERM arrives: readiness fails and connections are not kept alive. */
  shuttingDown: boolean;
}

/**
 * Stamps each request with its start time and the id the caller will see: the caller's X-Request-Id when it
 * is header-safe, else the Hub's own (the execute route may replace it with context.request_id).
 */
export function requestContext(lifecycle: Lifecycle): RequestHandler {
  return (req, res, next) => {
    res.locals.t0 = performance.now();
    const supplied = req.headers['x-request-id'];
    res.locals.requestId = isValidRequestId(supplied) ? supplied : String(req.id);
    res.setHeader('X-Request-Id', res.locals.requestId);
    res.setHeader('Cache-Control', 'no-store');
    if (lifecycle.shuttingDown) res.setHeader('Connection', 'close');
    next();
  };
}
