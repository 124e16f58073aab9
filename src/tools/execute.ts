import { type HubError, type Result, fail, hubError } from '../errors';
import { toIssues, validationError } from '../http/validation';
import type { ConnectionResolver } from '../integrations/connections';
import type { Logger } from '../logger';
import { executeRequestSchema, readableRequestId, readableToolName } from './execute-request';
import type { ToolRegistry } from './registry';
import type { Connection, ToolContext } from './types';

export interface ExecuteDeps {
  tools: ToolRegistry;
  connections: ConnectionResolver;
  logger: Logger;
}

/** A finished call. A success always names its tool; a failure may not (the request named none readably). */
export type Execution = { requestId: string; apiCalls: number } & (
  | { ok: true; tool: string; value: unknown }
  | { ok: false; tool: string | null; error: HubError }
);

/**
 * Runs one tool call for an authenticated agent service:
 * read the request → find the tool → validate its inputs → resolve the customer's (or end user's) connection
 * → run the tool. Every expected failure comes back as an error value in the outcome.
 */
export async function executeTool(
  deps: ExecuteDeps,
  body: unknown,
  ids: { reqId: string; fallbackRequestId: string },
): Promise<Execution> {
  const { fallbackRequestId } = ids;
  const parsed = executeRequestSchema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      tool: readableToolName(body),
      requestId: readableRequestId(body) ?? fallbackRequestId,
      error: validationError('The request body does not match the contract', toIssues(parsed.error)),
      apiCalls: 0,
    };
  }
  const request = parsed.data;
  const requestId = request.context?.request_id ?? fallbackRequestId;
  const done = (outcome: Result<unknown>, apiCalls = 0): Execution =>
    outcome.ok
      ? { ok: true, tool: request.tool, value: outcome.value, requestId, apiCalls }
      : { ok: false, tool: request.tool, error: outcome.error, requestId, apiCalls };

  const tool = deps.tools.get(request.tool);
  if (!tool) {
    return done(
      fail(
        hubError('TOOL_NOT_FOUND', `Unknown tool "${request.tool}"`, {
          details: { available_tools: deps.tools.names() },
        }),
      ),
    );
  }

  const input = tool.input.safeParse(request.inputs);
  if (!input.success) {
    return done(fail(validationError(`Invalid inputs for ${tool.name}`, toIssues(input.error, 'inputs'))));
  }

  const caller = { customerId: request.customer_id.toLowerCase(), userId: request.user_id ?? null };
  let connection: Connection | null = null;
  if (tool.integration !== null) {
    const resolved = await deps.connections.connect(tool, tool.integration, caller);
    if (!resolved.ok) return done(resolved);
    connection = resolved.value;
  }

  let apiCalls = 0;
  let logger: Logger | undefined; // made on first use: most calls never log
  const log = () => (logger ??= deps.logger.child({ req_id: ids.reqId, request_id: requestId, tool: tool.name }));
  const ctx: ToolContext = {
    ...caller,
    agentId: request.agent_id.toLowerCase(),
    requestId,
    conversationId: request.context?.conversation_id ?? null,
    get logger() {
      return log();
    },
    connection,
    countApiCall: () => {
      apiCalls++;
    },
  };
  try {
    return done(await tool.run(ctx, input.data), apiCalls);
  } catch (err) {
    log().error({ err }, 'tool failed unexpectedly');
    return done(fail(hubError('INTERNAL_ERROR', 'The tool failed unexpectedly; the error has been logged')), apiCalls);
  }
}
