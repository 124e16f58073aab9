import express, { type RequestHandler, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hubError } from '../errors';
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH, inspectJson } from '../http/json-body';
import { sendJson } from '../http/respond';
import { logAccess } from '../http/request-context';
import { type McpTool, mcpTools } from '../mcp/tools';
import { type McpToolResult, toToolResult } from '../mcp/results';
import type { CatalogEntry } from '../tools/catalog';
import { type RecordedExecuteDeps, executeRecorded } from '../tools/recorded-execute';

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

/** Stateless Streamable HTTP has no stream to GET and no session to DELETE. */
export const mcpMethodNotAllowed: RequestHandler = (_req, res) =>
  rpcError(res, 405, -32000, 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to /mcp', ['Allow', 'POST']);

/** serverInfo in the MCP handshake; the tools carry their own versions (`_meta['hub/version']`). */
const SERVER_INFO = { name: 'hub', title: 'Hub: Google Calendar and Gmail tools', version: '1.0.0' };

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(',') : value);

/** The request id a retry must carry again, from the call's `_meta` (MCP's place for request metadata). */
function metaRequestId(meta: Record<string, unknown> | undefined): unknown {
  return meta?.request_id ?? meta?.['hub/request_id'];
}

/**
 * POST /mcp — the Model Context Protocol over Streamable HTTP, stateless (a server per request: nothing to keep
 * between calls, any replica answers). `tools/list` is the catalog; `tools/call` is an execute request built
 * from the call and the identity headers and handed to executeTool — the very pipeline POST /execute runs (rate
 * limits, validation, credentials, idempotency and whatever joins it), so the two can never differ.
 */
export function mcpRoute(deps: { execute: RecordedExecuteDeps; catalog: { tools: readonly CatalogEntry[] } }): RequestHandler {
  const tools: McpTool[] = mcpTools(deps.catalog);
  return async (req, res) => {
    const locals = res.locals;
    // The transport writes the answer itself: give it the headers every Hub answer carries, and log it when sent.
    for (let i = 0; i + 1 < locals.baseHeaders.length; i += 2) res.setHeader(locals.baseHeaders[i]!, locals.baseHeaders[i + 1]!);
    res.setHeader('X-Request-Id', locals.requestId);
    res.once('finish', () => logAccess(res));

    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<McpToolResult> => {
      const t0 = performance.now();
      const { name, arguments: args, _meta } = request.params;
      const customerId = header(req.headers['x-hub-customer-id']);
      const agentId = header(req.headers['x-hub-agent-id']);
      locals.tool = name;
      if (customerId === undefined || agentId === undefined) {
        const missing = [customerId === undefined ? 'X-Hub-Customer-Id' : null, agentId === undefined ? 'X-Hub-Agent-Id' : null].filter(Boolean).join(' and ');
        const error = hubError('VALIDATION_ERROR', `Missing ${missing} header: the MCP client must send the customer's and the agent's UUIDs as headers`);
        locals.errorCode = error.code;
        return toToolResult({ ok: false, tool: name, error, requestId: locals.requestId, apiCalls: 0 }, 0);
      }
      const requestId = metaRequestId(_meta);
      const conversationId = header(req.headers['x-hub-conversation-id']);
      const body = {
        tool: name,
        agent_id: agentId,
        customer_id: customerId,
        user_id: header(req.headers['x-hub-user-id']) ?? null,
        inputs: args ?? {},
        context: { conversation_id: conversationId ?? null, request_id: requestId ?? null },
      };
      // The very pipeline POST /execute runs, recorded the same way (metrics, span, audit receipt).
      const recorded = await executeRecorded(
        deps.execute,
        body,
        { reqId: locals.reqId, fallbackRequestId: locals.requestId, principal: locals.service },
        req.headers,
      );
      const { execution } = recorded;
      locals.requestId = execution.requestId;
      locals.traceId = recorded.traceId;
      if (execution.caller) {
        locals.customerId = execution.caller.customerId;
        locals.agentId = execution.caller.agentId;
        locals.userId = execution.caller.userId;
      }
      res.setHeader('X-Request-Id', execution.requestId);
      if (!execution.ok) locals.errorCode = execution.error.code;
      const result = toToolResult(execution, Math.round(performance.now() - t0));
      recorded.finish(t0);
      return result;
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
}
