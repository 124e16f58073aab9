import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { type Logger, accessLogger } from '../logger';
import { isValidRequestId } from '../tools/execute-request';
import { RequestState } from './locals';

export interface Lifecycle {
  /** Set when SIGTERM arrives: readiness fails and connections are not kept alive. */
  shuttingDown: boolean;
  /**
   * Set when something this process cannot get back is gone (`database_lost`: the embedded database's thread
   * died). Liveness then fails, and the entry point stops the process, so that a supervisor starts a new one.
   */
  failed?: 'database_lost';
}

const SENSITIVE_PARAM = /token|code|state|secret|key|passw|signature/i;

/** Query values that could be credentials (connect-link tokens, OAuth codes) never reach the access log. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of new Set(params.keys())) if (SENSITIVE_PARAM.test(key)) params.set(key, '[Redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

/** Longer URLs are cut in the access log: nothing legitimate is that long, and a log line's cost follows its size. */
export const MAX_LOGGED_URL_CHARS = 1024;

/** The URL as the access log shows it: credentials redacted (over the whole URL), then cut to a bounded length. */
export function loggedUrl(url: string): string {
  const redacted = redactUrl(url);
  if (redacted.length <= MAX_LOGGED_URL_CHARS) return redacted;
  return `${redacted.slice(0, MAX_LOGGED_URL_CHARS)}…[${redacted.length - MAX_LOGGED_URL_CHARS} more characters]`;
}

// Probes and Prometheus' scrapes (every few seconds each) would drown the access log.
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The prelude of every request: start time, the Hub's request id, the id the caller will see (its own
 * X-Request-Id when header-safe; the execute route may replace it with context.request_id), and the headers
 * every answer carries (written by respond.ts, with the access line, when the answer is sent).
 */
export function requestContext(deps: { logger: Logger; lifecycle: Lifecycle; securityHeaders: readonly string[] }): RequestHandler {
  const access = accessLogger(deps.logger);
  const baseHeaders = [...deps.securityHeaders, 'Cache-Control', 'no-store'];
  return (req, res, next) => {
    const t0 = performance.now();
    const reqId = randomUUID();
    const supplied = req.headers['x-request-id'];
    const requestId = isValidRequestId(supplied) ? supplied : reqId;
    res.locals = new RequestState(t0, reqId, requestId, baseHeaders, QUIET_PATHS.has(req.path) ? undefined : access);
    if (deps.lifecycle.shuttingDown) res.setHeader('Connection', 'close');
    next();
  };
}

/**
 * One line per answered request: ids, method, redacted (and length-capped) URL, status, duration, tool and error
 * code; for a tool call also who called (customer, agent, end user: ids, not secrets) and its trace id. No
 * headers and no bodies are logged at all.
 */
export function logAccess(res: Response): void {
  const l = res.locals;
  if (l.access === undefined) return;
  const req = res.req;
  const line = {
    req_id: l.reqId,
    request_id: l.requestId,
    method: req.method,
    url: loggedUrl(req.originalUrl),
    status: res.statusCode,
    duration_ms: Math.round(performance.now() - l.t0),
    tool: l.tool,
    error_code: l.errorCode,
    customer_id: l.customerId,
    agent_id: l.agentId,
    user_id: l.userId,
    trace_id: l.traceId,
  };
  if (res.statusCode >= 500) l.access.error(line, 'request failed');
  else l.access.info(line, 'request completed');
}

/** The logger for code handling this request, bound to its ids (created on first use: most requests never log). */
export function requestLogger(logger: Logger, res: Response): Logger {
  return (res.locals.log ??= logger.child({ req_id: res.locals.reqId, request_id: res.locals.requestId }));
}
