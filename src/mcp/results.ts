import type { HubError } from '../errors';
import type { Execution } from '../tools/execute';

/** MCP's CallToolResult, as the Hub fills it. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
  _meta: Record<string, unknown>;
}

/** One line a model can act on: what failed, and what to do — wait, have a person connect, or change the call. */
export function actionableLine(error: HubError): string {
  const setupUrl = error.details?.setup_url;
  let next: string;
  if (typeof setupUrl === 'string') next = `A person must (re)connect the integration at ${setupUrl}, then call again.`;
  else if (error.retryable)
    next = error.retryAfterS !== undefined ? `Retry in ${error.retryAfterS} s with the same request_id.` : 'Retry shortly with the same request_id.';
  else if (error.code === 'VALIDATION_ERROR') next = 'Fix the arguments and call again.';
  else next = 'Retrying the same call will not help.';
  return `${error.code}: ${error.message.replace(/[.\s]+$/, '')}. ${next}`.replace(/[\r\n]+/g, ' ');
}

/**
 * A finished execution as an MCP tool result. Failures are results (`isError: true`), never protocol errors, so
 * the model sees them: the Hub's code, retryable, retry_after_s and setup_url in structuredContent.error, the
 * rest of the error's details beside them. The envelope's metadata goes in `_meta`.
 */
export function toToolResult(execution: Execution, executionTimeMs: number): McpToolResult {
  const meta: Record<string, unknown> = {
    'hub/request_id': execution.requestId,
    'hub/api_calls': execution.apiCalls,
    'hub/execution_time_ms': executionTimeMs,
  };
  if (execution.replay) meta['hub/idempotent_replay'] = true;
  if (execution.ok) {
    const value = execution.value as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, _meta: meta };
  }
  const { error } = execution;
  const structured: Record<string, unknown> = { code: error.code, message: error.message, retryable: error.retryable };
  if (error.retryAfterS !== undefined) structured.retry_after_s = error.retryAfterS;
  if (typeof error.details?.setup_url === 'string') structured.setup_url = error.details.setup_url;
  if (error.details !== undefined) structured.details = error.details;
  return { content: [{ type: 'text', text: actionableLine(error) }], structuredContent: { error: structured }, isError: true, _meta: meta };
}
