import express, { type Request, type RequestHandler, type Response } from 'express';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Policies } from '../../access/policy-cache';
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH, inspectJson } from '../../http/json-body';
import { sendJson, sendText } from '../../http/respond';
import { logAccess } from '../../http/request-context';
import type { Logger } from '../../logger';
import type { Exchange, McpDeps } from '../../mcp/answer';
import { type BodyAnswer, answerBody } from '../../mcp/batch';
import { holdRefusal } from '../../http/refusal-hold';
import { identityOf } from '../../mcp/identity';
import { RPC, readMembers } from '../../mcp/messages';
import { type ProtocolServer, protocolServer } from '../../mcp/protocol';
import { createToolList } from '../../mcp/tool-list';
import type { CatalogEntry } from '../../tools/catalog';
import type { RecordedExecuteDeps } from '../../tools/recorded-execute';

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

/**
 * POST /mcp — the Model Context Protocol over Streamable HTTP, stateless (nothing kept between requests, any
 * replica answers). The body — one JSON-RPC message or a batch of at most MAX_BATCH_MESSAGES — is answered member
 * by member, in order: each is charged to the caller's rate limits before anything is done for it, and once the
 * answer holds MAX_ANSWER_BYTES the rest are not run (src/mcp/batch.ts). `tools/list` is the caller's catalog (as GET
 * /api/internal/tools filters it), serialized once per scope; `tools/call` is an execute request handed to the
 * very pipeline POST /execute runs. An answer whose every request was refused by the same limit has that status
 * (429 with Retry-After for a flood, held HUB_RATE_LIMITED_HOLD_MS first); notifications alone are accepted with 202.
 */
export function mcpRoute(deps: {
  execute: RecordedExecuteDeps;
  catalog: { tools: readonly CatalogEntry[] };
  policies: Policies;
  logger: Logger;
  /** How long an answer whose every request a rate limit refused is held (HUB_RATE_LIMITED_HOLD_MS). */
  refusalHoldMs: number;
}): RequestHandler {
  const mcp: McpDeps = { ...deps, toolList: createToolList(deps.catalog, deps.execute.tools) };
  return async (req, res) => {
    const locals = res.locals;
    const unfit = transportRefusal(req);
    if (unfit) return rpcError(res, unfit.status, RPC.serverError, unfit.message);
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
    let answer: BodyAnswer | undefined;
    try {
      answer = await answerBody(mcp, ex, read, () => closed);
    } finally {
      if (server) void server.then((s) => s.close());
    }
    if (answer === undefined) return; // the client left: the rest was not run
    const { refusal } = answer;
    if (refusal?.code === 'RATE_LIMITED' && !(await holdRefusal(res, deps.refusalHoldMs))) return;
    if (refusal?.retryAfterS !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterS));
    if (refusal?.headers) for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
    if (answer.json !== null) return sendText(res, answer.status, 'application/json', answer.json);
    res.writeHead(202, [...locals.baseHeaders, 'X-Request-Id', locals.requestId]);
    res.end();
    logAccess(res);
  };
}
