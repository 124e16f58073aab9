import type { IncomingHttpHeaders } from 'node:http';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { scopeRefusal } from '../access/key-scope';
import type { Policies } from '../access/policy-cache';
import type { ServicePrincipal } from '../access/service-keys';
import type { HubError } from '../core/errors';
import { PARSE_OPTIONS, toIssues, validationError } from '../core/validation';
import type { Logger } from '../logger';
import { catalogPolicy } from '../tools/catalog-view';
import { chargeLimits } from '../tools/charge';
import { type RecordedExecuteDeps, executeRecorded } from '../tools/recorded-execute';
import { HEADERS, type Identity, callHeaderIssues, payerOf } from './identity';
import { type CallParams, type Member, RPC, type RpcErrorObject, type RpcId, issueText, readCallParams } from './messages';
import type { ProtocolServer } from './protocol';
import { actionableLine, toToolResult } from './results';
import type { ToolListFor } from './tool-list';

/**
 * One member of a POST /mcp request, answered: charged to the caller's rate limits before anything else is done
 * for it — a `tools/call` by the execute pipeline itself (the very charge POST /execute makes), every other message
 * here with the same limiter (chargeLimits), priced like a read — then run. Hub failures of a tool call are tool
 * results (`isError`), which a model reads; those of any other message are JSON-RPC errors whose `data` is the
 * Hub's error (code, retryable, retry_after_s, details).
 */

export interface McpDeps {
  execute: RecordedExecuteDeps;
  policies: Policies;
  toolList: ToolListFor;
  logger: Logger;
}

/** What one HTTP request carries for all its members. */
export interface Exchange {
  principal: ServicePrincipal | undefined;
  identity: Identity;
  headers: IncomingHttpHeaders;
  reqId: string;
  locals: Express.Locals;
  /** The SDK's server for the protocol's own messages, made on first use. */
  protocol: () => Promise<ProtocolServer>;
  /**
   * The rate limit one of this request's messages met: every member has the same payer, so the members after it
   * are refused alike at once — a refused batch costs one charge, not twenty.
   */
  limited?: HubError;
}

export interface Answer {
  /** The serialized JSON-RPC response; undefined for a notification or a client's response. */
  json?: string;
  /** Why the message was refused before it ran (not charged, or over a limit). */
  refused?: HubError;
}

const idJson = (id: RpcId | null) => JSON.stringify(id);
export const errorJson = (id: RpcId | null, error: RpcErrorObject) => `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(error)}}`;
const resultJson = (id: RpcId, result: string) => `{"jsonrpc":"2.0","id":${idJson(id)},"result":${result}}`;

/** A Hub error as JSON-RPC's: the text a model can act on, and the Hub's error as data. */
export function hubRpcError(error: HubError): RpcErrorObject {
  const data: Record<string, unknown> = { code: error.code, message: error.message, retryable: error.retryable };
  if (error.retryAfterS !== undefined) data.retry_after_s = error.retryAfterS;
  if (error.details !== undefined) data.details = error.details;
  return { code: RPC.serverError, message: actionableLine(error), data };
}

/** A refusal's JSON-RPC error, serialized once however many members it answers. */
const refusalText = new WeakMap<HubError, string>();
function refusalJson(id: RpcId | null, error: HubError): string {
  let text = refusalText.get(error);
  if (text === undefined) refusalText.set(error, (text = JSON.stringify(hubRpcError(error))));
  return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${text}}`;
}

/** Scope first (a key must not spend another customer's limits), then the charge. Null when admitted. */
async function admit(deps: McpDeps, ex: Exchange, method: string): Promise<HubError | null> {
  if (ex.limited) return ex.limited;
  const { identity, principal } = ex;
  if (identity.customerId !== undefined) {
    const outOfScope = scopeRefusal(principal, identity.customerId, identity.agentId ?? null, undefined);
    if (outOfScope) return outOfScope;
  }
  const payer = payerOf(identity, principal);
  const limited = await chargeLimits(deps.execute, payer.customerId, payer.agentId, { name: method, sideEffects: 'reads' });
  if (limited) ex.limited = limited;
  return limited;
}

async function listTools(deps: McpDeps, ex: Exchange): Promise<{ ok: true; json: string } | { ok: false; error: HubError }> {
  const { identity, principal } = ex;
  if (identity.invalid.length > 0) return { ok: false, error: validationError('Invalid identity headers', identity.invalid) };
  if (identity.customerId === undefined && identity.agentId !== undefined) {
    const issue = { path: `headers.${HEADERS.customer}`, message: `is required with ${HEADERS.agent}` };
    return { ok: false, error: validationError('Invalid identity headers', [issue]) };
  }
  const logger = () => deps.logger.child({ req_id: ex.reqId });
  const policy = await catalogPolicy({ policies: deps.policies, logger }, principal, identity.customerId, identity.agentId);
  return policy.ok ? { ok: true, json: deps.toolList(principal, policy.value) } : policy;
}

/** tools/call: an execute request built from the call and the identity headers, run by the execute pipeline. */
async function callTool(deps: McpDeps, ex: Exchange, params: CallParams): Promise<string> {
  const t0 = performance.now();
  const { identity, locals } = ex;
  locals.tool = params.name;
  const headerIssues = callHeaderIssues(identity);
  if (headerIssues.length > 0) {
    const error = validationError(`The MCP client must send the customer's and the agent's UUIDs as headers`, headerIssues);
    locals.errorCode = error.code;
    return JSON.stringify(toToolResult({ ok: false, tool: params.name, error, requestId: locals.requestId, apiCalls: 0 }, 0));
  }
  const meta = params._meta;
  const body = {
    tool: params.name,
    agent_id: identity.agentId,
    customer_id: identity.customerId,
    user_id: identity.userId ?? null,
    inputs: params.arguments ?? {},
    context: { conversation_id: identity.conversationId ?? null, request_id: meta?.request_id ?? meta?.['hub/request_id'] ?? null },
  };
  // The very pipeline POST /execute runs, recorded the same way (metrics, span, audit receipt).
  const recorded = await executeRecorded(deps.execute, body, { reqId: ex.reqId, fallbackRequestId: locals.requestId, principal: ex.principal }, ex.headers);
  const { execution } = recorded;
  locals.requestId = execution.requestId;
  locals.traceId = recorded.traceId;
  if (execution.caller) {
    locals.customerId = execution.caller.customerId;
    locals.agentId = execution.caller.agentId;
    locals.userId = execution.caller.userId;
  }
  if (!execution.ok) locals.errorCode = execution.error.code;
  const json = JSON.stringify(toToolResult(execution, Math.round(performance.now() - t0)));
  recorded.finish(t0);
  return json;
}

/** A tool call the execute pipeline charges: it names its caller in full and its params can be read. */
function chargedByExecute(ex: Exchange, member: Member, params: ReturnType<typeof readCallParams> | undefined): boolean {
  return member.kind === 'request' && member.method === 'tools/call' && params?.ok === true && callHeaderIssues(ex.identity).length === 0;
}

export async function answerMember(deps: McpDeps, ex: Exchange, member: Member): Promise<Answer> {
  if (member.kind === 'response') return {};
  if (member.kind === 'invalid') return { json: errorJson(member.id, { code: RPC.invalidRequest, message: `Invalid request: ${member.reason}` }) };
  const params = member.kind === 'request' && member.method === 'tools/call' ? readCallParams(member.params) : undefined;
  if (!chargedByExecute(ex, member, params)) {
    const refused = await admit(deps, ex, member.method);
    if (refused) {
      ex.locals.errorCode = refused.code;
      return { refused, ...(member.kind === 'request' ? { json: refusalJson(member.id, refused) } : {}) };
    }
  }
  if (member.kind === 'notification') {
    (await ex.protocol()).tell(member.message);
    return {};
  }
  const { id } = member;
  if (params !== undefined) return { json: params.ok ? resultJson(id, await callTool(deps, ex, params.value)) : errorJson(id, params.error) };
  if (member.method === 'tools/list') {
    const list = await listTools(deps, ex);
    if (!list.ok) ex.locals.errorCode = list.error.code;
    return { json: list.ok ? resultJson(id, list.json) : errorJson(id, hubRpcError(list.error)) };
  }
  if (member.method === 'initialize') {
    // The SDK would answer malformed initialize params -32603 with its zod error as the message.
    const parsed = InitializeRequestSchema.safeParse(member.message, PARSE_OPTIONS);
    if (!parsed.success) {
      const { issues } = toIssues(parsed.error);
      return { json: errorJson(id, { code: RPC.invalidParams, message: `Invalid params: ${issueText(issues)}`, data: { issues } }) };
    }
  }
  return { json: JSON.stringify(await (await ex.protocol()).ask({ ...member.message, id })) };
}

/** The answer a member gets when the request's answer is already as large as one may be: it was not run. */
export const overBudget = (id: RpcId, maxBytes: number): string =>
  errorJson(id, {
    code: RPC.serverError,
    message: `Not run: this request's answer already holds ${maxBytes} bytes, as much as one answer may; send this message again in a request of its own`,
    data: { max_answer_bytes: maxBytes },
  });
