import { z } from 'zod';
import { PARSE_OPTIONS, type ValidationIssue, toIssues } from '../core/validation';

/**
 * Reading a POST /mcp body as JSON-RPC 2.0 messages, before anything runs. A batch holds at most
 * MAX_BATCH_MESSAGES: each member is charged and answered on its own, and a bound on their number bounds what
 * one request can make the Hub do and send (MCP 2025-06-18 dropped batches; older clients may still send them).
 */

export const MAX_BATCH_MESSAGES = 20;

export type RpcId = string | number;

export type Member =
  | { kind: 'request'; id: RpcId; method: string; params: Record<string, unknown> | undefined; message: Record<string, unknown> }
  | { kind: 'notification'; method: string; message: Record<string, unknown> }
  /** A response from the client: a stateless server sends no requests, so there is nothing it could answer. */
  | { kind: 'response' }
  | { kind: 'invalid'; id: RpcId | null; reason: string };

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** JSON-RPC's own error codes. */
export const RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, serverError: -32000 } as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RpcId => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

function member(raw: unknown): Member {
  if (!isObject(raw)) return { kind: 'invalid', id: null, reason: 'a JSON-RPC message is a JSON object' };
  const id = isId(raw.id) ? raw.id : null;
  if (raw.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: '"jsonrpc" must be "2.0"' };
  if (typeof raw.method !== 'string') {
    if (id !== null && ('result' in raw || 'error' in raw)) return { kind: 'response' };
    return { kind: 'invalid', id, reason: '"method" must be a string' };
  }
  if (raw.params !== undefined && !isObject(raw.params)) return { kind: 'invalid', id, reason: '"params" must be an object' };
  const params = raw.params;
  if (!('id' in raw)) return { kind: 'notification', method: raw.method, message: raw };
  if (id === null) return { kind: 'invalid', id: null, reason: '"id" must be a string or an integer' };
  return { kind: 'request', id, method: raw.method, params, message: raw };
}

/** The body's members, or why the request as a whole is refused (nothing in it is run). */
export function readMembers(body: unknown): { ok: true; batch: boolean; members: Member[] } | { ok: false; error: RpcErrorObject } {
  if (!Array.isArray(body)) return { ok: true, batch: false, members: [member(body)] };
  if (body.length === 0) return { ok: false, error: { code: RPC.invalidRequest, message: 'Invalid request: an empty batch' } };
  if (body.length > MAX_BATCH_MESSAGES) {
    return {
      ok: false,
      error: {
        code: RPC.invalidRequest,
        message: `Invalid request: a batch holds at most ${MAX_BATCH_MESSAGES} messages (this one has ${body.length}); nothing in it was run`,
        data: { max_batch_messages: MAX_BATCH_MESSAGES },
      },
    };
  }
  const members = body.map(member);
  if (members.length > 1 && members.some((m) => m.kind === 'request' && m.method === 'initialize')) {
    // MCP: "The initialize request MUST NOT be part of a JSON-RPC batch".
    return { ok: false, error: { code: RPC.invalidRequest, message: 'Invalid request: initialize must be sent alone, not in a batch' } };
  }
  return { ok: true, batch: true, members };
}

const jsonObject = (what: string) =>
  z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), `must be a JSON object (${what})`);

/** tools/call's params as MCP defines them; further members (`task`, extensions) are left to the protocol. */
const callParams = z.looseObject({
  name: z.string('must be the tool name, a string').min(1).max(100),
  arguments: jsonObject("the tool's arguments by name").optional(),
  _meta: jsonObject('request metadata, e.g. {"request_id": "…"}').optional(),
});

export type CallParams = z.output<typeof callParams>;

/** tools/call's params, or the -32602 that names each field at fault (the SDK would answer -32603 with a zod dump). */
export function readCallParams(params: Record<string, unknown> | undefined): { ok: true; value: CallParams } | { ok: false; error: RpcErrorObject } {
  const parsed = callParams.safeParse(params ?? {}, PARSE_OPTIONS);
  if (parsed.success) return { ok: true, value: parsed.data };
  const { issues } = toIssues(parsed.error, 'params');
  return { ok: false, error: { code: RPC.invalidParams, message: `Invalid params: ${issueText(issues)}`, data: { issues } } };
}

/** `params.arguments: must be a JSON object; params.name: …` — each issue once, at most five. */
export function issueText(issues: readonly ValidationIssue[], rename: (path: string) => string = (p) => p): string {
  const shown = issues.slice(0, 5).map((i) => `${rename(i.path)}: ${i.message}`);
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return shown.join('; ');
}
