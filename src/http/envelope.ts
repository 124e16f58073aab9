import type { Response } from 'express';
import { type HubError, codeToStatus } from '../errors';
import { sendJson } from './respond';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** performance.now() when the request arrived. */
      t0: number;
      /** The id the caller sees (X-Request-Id, metadata.request_id). */
      requestId: string;
      /** Tool name for error envelopes and the access log, once known. */
      tool?: string | null;
      /** Error code for the access log. */
      errorCode?: string;
    }
  }
}

export interface Metadata {
  execution_time_ms: number;
  api_calls: number;
  request_id: string;
}

const metadata = (res: Response, apiCalls: number): Metadata => ({
  execution_time_ms: Math.round(performance.now() - res.locals.t0),
  api_calls: apiCalls,
  request_id: res.locals.requestId,
});

export function sendSuccess(res: Response, tool: string, result: unknown, apiCalls: number): void {
  res.locals.tool = tool;
  sendJson(res, 200, { success: true, tool, result, metadata: metadata(res, apiCalls) });
}

/** The one way any error leaves the Hub: the contract's envelope, its status, and the matching headers. */
export function sendError(res: Response, error: HubError, apiCalls = 0): void {
  const tool = res.locals.tool ?? null;
  res.locals.errorCode = error.code;
  const status = codeToStatus(error.code);
  if (error.retryAfterS !== undefined) res.setHeader('Retry-After', String(error.retryAfterS));
  if (status === 401 && error.code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'ServiceSecret realm="hub"');
  const body: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  body.retryable = error.retryable;
  if (error.retryAfterS !== undefined) body.retry_after_s = error.retryAfterS;
  sendJson(res, status, { success: false, tool, error: body, metadata: metadata(res, apiCalls) });
}
