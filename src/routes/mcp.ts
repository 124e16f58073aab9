import express, { type Request, type RequestHandler, type Response } from 'express';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Policies } from '../access/policy-cache';
import { type HubError, codeToStatus } from '../errors';
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH, inspectJson } from '../http/json-body';
import { sendJson, sendText } from '../http/respond';
import { logAccess } from '../http/request-context';
import type { Logger } from '../logger';
import { type Exchange, type McpDeps, answerMember, overBudget } from '../mcp/answer';
import { identityOf } from '../mcp/identity';
import { RPC, readMembers } from '../mcp/messages';
import { type ProtocolServer, protocolServer } from '../mcp/protocol';
import { actionableLine } from '../mcp/results';
import { createToolList } from '../mcp/tool-list';
import type { CatalogEntry } from '../tools/catalog';
import type { RecordedExecuteDeps } from '../tools/recorded-execute';

/** A JSON-RPC error outside any tool call (malformed message, wrong origin, wrong method): MCP's protocol errors. */
function rpcError(res: Response, status: number, code: number, message: string, extraHeaders: readonly string[] = []): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, extraHeaders);
}

/**
 * DNS-rebinding protection as the MCP transport spec requires ("Servers MUST validate the Origin header on all
 * incoming connections… If the Origin header is present and invalid, servers MUST respond with HTTP 403"):
 * checked before authentication, so a page a browser was lured to learns nothing. Servers and CLIs send no Origin.
 */
export function mcpOriginCheck(allowedOrigins: readonly string[]): RequestHandler {
  const allowed = new Set(allowedOrigins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(origin)) {
      rpcError(res, 403, -32000, `Origin ${origin.slice(0, 200)} is not allowed to call this MCP server`);
      return;
    }
    next();
  };
}

const parseJson = express.json({ limit: BODY_LIMIT_BYTES });

/** The body as JSON-RPC expects it: a parse failure is -32700, too large or too deep an invalid request (-32600). */
export const mcpJsonBody: RequestHandler = (req, res, next) => {
  parseJson(req, res, (err?: unknown) => {
    if (err !== undefined && err !== null) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') rpcError(res, 413, -32600, `Request body larger than ${BODY_LIMIT_BYTES} bytes`);
      else rpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      return;
    }
    if (req.body === undefined) {
      rpcError(res, 415, -32700, 'Send the JSON-RPC message with Content-Type: application/json');
      return;
    }
    if (inspectJson(req.body, MAX_JSON_DEPTH) !== null) {
      rpcError(res, 400, -32600, `Invalid request: nested deeper than ${MAX_JSON_DEPTH} levels or using the key "__proto__"`);
      return;
    }
    next();
  });
};

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(',') : value);

/** Stateless Streamable HTTP has no stream to GET and no session to DELETE. */
export const mcpMethodNotAllowed: RequestHandler = (_req, res) =>
  rpcError(res, 405, -32000, 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to /mcp', ['Allow', 'POST']);

/** One answer's bound: past it, the batch's remaining members are not run (each is told to come again alone). */
export const MAX_ANSWER_BYTES = 512 * 1024;

const SUPPORTED_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

/** The transport's checks on the request itself (MCP Streamable HTTP), before any message is read. */
function transportRefusal(req: Request): { status: number; message: string } | null {
  const accept = header(req.headers.accept) ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return { status: 406, message: 'Not Acceptable: the client must accept both application/json and text/event-stream' };
  }
  const version = header(req.headers['mcp-protocol-version']);
  if (version !== undefined && !SUPPORTED_VERSIONS.has(version)) {
    return {
      status: 400,
      message: `Bad Request: unsupported MCP-Protocol-Version ${version.slice(0, 40)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    };
  }
  return null;
}

/** The HTTP status of an answer whose every request was refused alike (429 for a flood), else 200. */
function statusOf(refusals: readonly HubError[], answered: number): number {
  if (answered === 0 || refusals.length < answered) return 200;
  const codes = new Set(refusals.map((r) => r.code));
  return codes.size === 1 ? codeToStatus(refusals[0]!.code) : 200;
}

/**
 * POST /mcp — the Model Context Protocol over Streamable HTTP, stateless (nothing kept between requests, any
 * replica answers). The body — one JSON-RPC message or a batch of at most MAX_BATCH_MESSAGES — is answered member
 * by member, in order: each is charged to the caller's rate limits before anything is done for it, and once the
 * answer holds MAX_ANSWER_BYTES the rest are not run. `tools/list` is the caller's catalog (as GET
 * /api/internal/tools filters it), serialized once per scope; `tools/call` is an execute request handed to the
 * very pipeline POST /execute runs. An answer whose every request was refused by the same limit has that status
 * (429 with Retry-After for a flood); notifications alone are accepted with 202.
 */
export function mcpRoute(deps: {
  execute: RecordedExecuteDeps;
  catalog: { tools: readonly CatalogEntry[] };
  policies: Policies;
  logger: Logger;
}): RequestHandler {
  const mcp: McpDeps = { ...deps, toolList: createToolList(deps.catalog, deps.execute.tools) };
  return async (req, res) => {
    const locals = res.locals;
    const refusal = transportRefusal(req);
    if (refusal) return rpcError(res, refusal.status, RPC.serverError, refusal.message);
    const read = readMembers(req.body);
    if (!read.ok) return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: read.error });
    let closed = false;
    res.once('close', () => (closed = true));
    let server: Promise<ProtocolServer> | undefined;
    const ex: Exchange = {
      principal: locals.service,
      identity: identityOf(req.headers),
      headers: req.headers,
      reqId: locals.reqId,
      locals,
      protocol: () => (server ??= protocolServer()),
    };
    const parts: string[] = [];
    const refusals: HubError[] = [];
    let bytes = 0;
    let requests = 0;
    let invalid = 0;
    try {
      for (const member of read.members) {
        if (closed) return; // the client left: the rest is not run
        if (member.kind === 'request' && bytes >= MAX_ANSWER_BYTES) {
          parts.push(overBudget(member.id, MAX_ANSWER_BYTES));
          requests++;
          continue;
        }
        const answer = await answerMember(mcp, ex, member);
        if (answer.refused) refusals.push(answer.refused);
        if (member.kind === 'invalid') invalid++;
        if (member.kind === 'request' || member.kind === 'invalid') requests++;
        if (answer.json !== undefined) {
          parts.push(answer.json);
          bytes += answer.json.length;
        }
      }
    } finally {
      if (server) void server.then((s) => s.close());
    }
    if (closed) return;
    const retryAfter = Math.max(0, ...refusals.map((r) => r.retryAfterS ?? 0));
    if (retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
    const limited = refusals.find((r) => r.headers !== undefined);
    if (limited?.headers) for (const [name, value] of Object.entries(limited.headers)) res.setHeader(name, value);
    if (parts.length === 0) {
      // Notifications (or responses) only: accepted — unless refused, which only the status can say.
      if (refusals.length > 0) return rpcError(res, codeToStatus(refusals[0]!.code), RPC.serverError, actionableLine(refusals[0]!));
      res.writeHead(202, [...locals.baseHeaders, 'X-Request-Id', locals.requestId]);
      res.end();
      return logAccess(res);
    }
    const status = !read.batch && invalid === 1 ? 400 : statusOf(refusals, requests);
    sendText(res, status, 'application/json', read.batch ? `[${parts.join(',')}]` : parts[0]!);
  };
}
