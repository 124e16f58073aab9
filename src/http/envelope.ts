import type { Response } from 'express';
import { type HubError, codeToStatus } from '../core/errors';
import type { DeprecationNotice, VersionInfo } from '../tools/deprecation';
import './locals';
import { sendJson } from './respond';

export interface Metadata {
  execution_time_ms: number;
  api_calls: number;
  request_id: string;
  /** Present (true) when this is the stored answer to an earlier call with the same request_id. */
  idempotent_replay?: true;
  /** The exact version of the tool that answered (once the `tool` string resolved to one). */
  tool_version?: string;
  /** Present when that version is deprecated (it also sets the Deprecation and Sunset headers). */
  deprecation?: DeprecationNotice;
  /** The W3C trace id of this call (the agent's traceparent, or the Hub's trace when tracing is on). */
  trace_id?: string;
}

function metadata(res: Response, apiCalls: number, replay = false, version?: VersionInfo): Metadata {
  const m: Metadata = { execution_time_ms: Math.round(performance.now() - res.locals.t0), api_calls: apiCalls, request_id: res.locals.requestId };
  if (replay) m.idempotent_replay = true;
  if (version) {
    m.tool_version = version.version;
    if (version.deprecation) m.deprecation = version.deprecation.notice;
  }
  if (res.locals.traceId !== undefined) m.trace_id = res.locals.traceId;
  return m;
}

export function sendSuccess(res: Response, tool: string, result: unknown, apiCalls: number, replay = false, version?: VersionInfo): void {
  res.locals.tool = tool;
  sendJson(res, 200, { success: true, tool, result, metadata: metadata(res, apiCalls, replay, version) }, version?.deprecation?.headers);
}

/** The one way any error leaves the Hub: the contract's envelope, its status, and the matching headers. */
export function sendError(res: Response, error: HubError, apiCalls = 0, replay = false, version?: VersionInfo): void {
  const tool = res.locals.tool ?? null;
  res.locals.errorCode = error.code;
  const headers: string[] = [];
  if (error.retryAfterS !== undefined) headers.push('Retry-After', String(error.retryAfterS));
  // The admin API names its own (Bearer) challenge in error.headers; everything else uses the service secret.
  if (error.code === 'UNAUTHORIZED' && error.headers?.['WWW-Authenticate'] === undefined) headers.push('WWW-Authenticate', 'ServiceSecret realm="hub"');
  if (error.headers) for (const [name, value] of Object.entries(error.headers)) headers.push(name, value);
  if (version?.deprecation) headers.push(...version.deprecation.headers);
  const body: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  body.retryable = error.retryable;
  if (error.retryAfterS !== undefined) body.retry_after_s = error.retryAfterS;
  sendJson(res, codeToStatus(error.code), { success: false, tool, error: body, metadata: metadata(res, apiCalls, replay, version) }, headers);
}
