import type { HubError } from '../core/errors';
import type { ValidationIssue } from '../core/validation';
import type { Execution } from '../tools/execute';
import { HEADERS } from './identity';
import { issueText } from './messages';

/** MCP's CallToolResult, as the Hub fills it. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
  _meta: Record<string, unknown>;
}

/** An execute field as an MCP caller wrote it: its arguments, its `_meta`, or a header of its configuration. */
function asMcpPath(path: string): string {
  if (path === 'inputs' || path.startsWith('inputs.') || path.startsWith('inputs[')) return `arguments${path.slice('inputs'.length)}`;
  if (path.startsWith('headers.')) return `${path.slice('headers.'.length)} header`;
  const renamed: Record<string, string> = {
    'context.request_id': '_meta.request_id',
    customer_id: `${HEADERS.customer} header`,
    agent_id: `${HEADERS.agent} header`,
    user_id: `${HEADERS.user} header`,
    'context.conversation_id': `${HEADERS.conversation} header`,
  };
  return renamed[path] ?? path;
}

const MAX_NAMES = 30;

/** What a VALIDATION_ERROR's issues say, and who can fix them: the model (its arguments) or the client's configuration. */
function validationNext(error: HubError): { what: string; next: string } {
  const issues = Array.isArray(error.details?.issues) ? (error.details.issues as ValidationIssue[]) : [];
  if (issues.length === 0) return { what: '', next: 'Fix the call and send it again.' };
  const paths = issues.map((i) => asMcpPath(i.path));
  const what = ` (${issueText(issues, asMcpPath)}${error.details?.truncated === true ? '; more not listed' : ''})`;
  if (paths.every((p) => p.endsWith(' header'))) {
    return { what, next: "The MCP client's configuration must send these HTTP headers; changing the arguments will not help." };
  }
  return { what, next: 'Fix these and call again.' };
}

/**
 * The text a model reads (many clients never show it structuredContent): what failed, where — each field at
 * fault and why, a missing header by name — and what to do: wait, have a person connect, or change the call.
 * Bounded: at most five issues and thirty tool names, each issue's text already cut by toIssues.
 */
export function actionableLine(error: HubError): string {
  const setupUrl = error.details?.setup_url;
  let what = '';
  let next: string;
  if (typeof setupUrl === 'string') next = `A person must (re)connect the integration at ${setupUrl}, then call again.`;
  else if (error.retryable)
    next =
      error.retryAfterS !== undefined ? `Retry in ${error.retryAfterS} s with the same _meta.request_id.` : 'Retry shortly with the same _meta.request_id.';
  else if (error.code === 'VALIDATION_ERROR') ({ what, next } = validationNext(error));
  else next = 'Retrying the same call will not help.';
  const available = error.details?.available_tools;
  if (error.code === 'TOOL_NOT_FOUND' && Array.isArray(available)) {
    const names = available.slice(0, MAX_NAMES).join(', ');
    next = `Call one of: ${names}${available.length > MAX_NAMES ? ', …' : ''}.`;
  }
  return `${error.code}: ${error.message.replace(/[.\s]+$/, '')}${what}. ${next}`.replace(/[\r\n]+/g, ' ');
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
