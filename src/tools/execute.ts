import { type HubError, type Result, fail, hubError } from '../errors';
import { invalidInputs, toIssues, validationError } from '../http/validation';
import type { ConnectionResolver } from '../integrations/connections';
import { shortScope } from '../integrations/integrations';
import type { GoogleClients } from '../integrations/google-clients';
import type { Logger } from '../logger';
import type { IdempotencyGuard, WriteAttempt } from '../protection/idempotency';
import type { RateLimiter } from '../protection/rate-limit';
import { type Upstream, deadlineSignal } from '../upstream';
import { executeRequestSchema, readChargeKey, readableRequestId, readableToolName } from './execute-request';
import type { ToolRegistry } from './registry';
import type { ToolCache } from './tool-cache';
import type { HtmlConverter, HtmlToText } from './email/html-text';
import type { Connection, ToolContext, ToolSettings } from './types';

export interface ExecuteDeps {
  tools: ToolRegistry;
  connections: ConnectionResolver;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** At most once per (customer, tool, request_id) for tools that write. */
  idempotency: IdempotencyGuard;
  google: GoogleClients;
  /** Timeouts, safe retries and circuit breakers around every Google call. */
  upstream: Upstream;
  /** The whole tool call's budget, retries and waits included. */
  deadlineMs: number;
  settings: ToolSettings;
  cache: ToolCache;
  /** HTML mail → text off the event loop. */
  html: HtmlConverter;
  /** Defaults to Date.now. */
  now?: () => number;
}

/** A finished call. A success always names its tool; a failure may not (the request named none readably). */
export type Execution = { requestId: string; apiCalls: number; /** An earlier answer to the same request_id. */ replay?: true } & (
  | { ok: true; tool: string; value: unknown }
  | { ok: false; tool: string | null; error: HubError }
);

/** Google refused the token or its scopes: say where a person fixes that (and what is missing), as the connection checks do. */
function withSetupUrl(error: HubError, connection: Connection | null, requiredScopes: readonly string[]): HubError {
  if (!connection || (error.code !== 'INTEGRATION_EXPIRED' && error.code !== 'INTEGRATION_PERMISSION_DENIED')) return error;
  if (error.details?.setup_url !== undefined) return error; // the connection already said
  const scopes =
    error.code === 'INTEGRATION_PERMISSION_DENIED' ? { required_scopes: requiredScopes.map(shortScope), granted_scopes: connection.scopes.map(shortScope) } : {};
  return { ...error, details: { ...error.details, integration: connection.integration, ...scopes, setup_url: connection.setupUrl() } };
}

/** Google said 401 to a token the Hub believed valid (revoked access token, clock skew): worth one refresh. */
const tokenRejected = (error: HubError) => error.code === 'INTEGRATION_EXPIRED' && error.details?.reason === 'token_rejected';

/**
 * Runs one tool call for an authenticated agent service:
 * charge the rate limits (caller and tool read cheaply first) → read the request → find the tool → validate its
 * inputs → resolve the customer's (or end user's) connection → run the tool within its deadline — a write with a
 * request_id at most once, replaying its first answer to retries. Every expected failure comes back as an error
 * value in the outcome.
 */
export async function executeTool(
  deps: ExecuteDeps,
  body: unknown,
  ids: { reqId: string; fallbackRequestId: string },
): Promise<Execution> {
  const { fallbackRequestId } = ids;
  // Before anything that costs more than reading three fields — the full parse, a database query, a Google
  // call: a request over its limits costs none of them, however large its body.
  const key = readChargeKey(body);
  const charged = key && deps.tools.get(key.tool);
  if (key && charged) {
    const allowed = await deps.rateLimiter.consume(key.customerId, key.agentId, charged);
    if (!allowed.ok) return { ok: false, tool: charged.name, requestId: readableRequestId(body) ?? fallbackRequestId, error: allowed.error, apiCalls: 0 };
  }

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

  // A body that parses names a tool and a caller readChargeKey read too: a known tool has been charged above.
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

  const caller = { customerId: request.customer_id.toLowerCase(), userId: request.user_id ?? null };
  const agentId = request.agent_id.toLowerCase();

  const input = tool.input.safeParse(request.inputs);
  if (!input.success) {
    return done(fail(invalidInputs(tool.name, toIssues(input.error, 'inputs'))));
  }

  let connection: Connection | null = null;
  if (tool.integration !== null) {
    const resolved = await deps.connections.connect(tool, tool.integration, caller);
    if (!resolved.ok) return done(resolved);
    connection = resolved.value;
  }

  let apiCalls = 0;
  let attempt: WriteAttempt | undefined; // set by the idempotency guard for a write with a request_id
  let logger: Logger | undefined; // made on first use: most calls never log
  const log = () => (logger ??= deps.logger.child({ req_id: ids.reqId, request_id: requestId, tool: tool.name }));
  let deadline: AbortSignal | undefined; // a timer only for tools that look at it (those calling Google)
  let htmlToText: HtmlToText | undefined; // made on first use: most calls convert no HTML
  const deadlineAt = performance.now() + deps.deadlineMs;
  const ctx: ToolContext = {
    ...caller,
    agentId,
    get deadline() {
      return (deadline ??= deadlineSignal(Math.max(1, Math.round(deadlineAt - performance.now()))));
    },
    google: deps.google,
    get htmlToText() {
      return (htmlToText ??= deps.html.forCall({ key: caller.customerId, deadline: () => ctx.deadline, logger: log }));
    },
    callGoogle: async (op, fn) => {
      if (connection === null) throw new Error(`${tool.name} calls Google but declares no integration`);
      const failed = (error: HubError) => fail(withSetupUrl(error, connection, tool.requiredScopes));
      const countRequest = () => apiCalls++; // a token refresh this call made is a request to Google too
      const token = await connection.accessToken(ctx.deadline, countRequest);
      if (!token.ok) return failed(token.error);
      const attempt = (accessToken: string) => {
        const auth = deps.google.withAccessToken(accessToken);
        return deps.upstream.call(op, (signal) => fn(signal, auth), { deadline: ctx.deadline, onAttempt: () => apiCalls++ });
      };
      let answer = await attempt(token.value);
      if (!answer.ok && tokenRejected(answer.error)) {
        const fresh = await connection.refresh(ctx.deadline, countRequest);
        if (!fresh.ok) return failed(fresh.error);
        answer = await attempt(fresh.value);
      }
      return answer.ok ? answer : failed(answer.error);
    },
    requestId,
    idempotencyKey: request.context?.request_id ?? null,
    get earlierAttempt() {
      return attempt?.earlier ?? null;
    },
    outcomeUncertain: () => attempt?.outcomeUncertain(),
    conversationId: request.context?.conversation_id ?? null,
    now: deps.now ?? Date.now,
    settings: deps.settings,
    cache: deps.cache,
    get logger() {
      return log();
    },
    connection,
    countApiCall: () => {
      apiCalls++;
    },
  };
  const run = async (): Promise<Result<unknown>> => {
    try {
      return await tool.run(ctx, input.data);
    } catch (err) {
      log().error({ err }, 'tool failed unexpectedly');
      return fail(hubError('INTERNAL_ERROR', 'The tool failed unexpectedly; the error has been logged'));
    }
  };
  const idempotencyKey = request.context?.request_id;
  if (tool.sideEffects !== 'writes' || idempotencyKey == null) return done(await run(), apiCalls);
  const guarded = await deps.idempotency.run({ customerId: caller.customerId, tool: tool.name, requestId: idempotencyKey }, input.data, caller.userId, (a) => {
    attempt = a;
    return run();
  });
  return { ...done(guarded.outcome, guarded.replay ? 0 : apiCalls), ...(guarded.replay ? { replay: true } : {}) };
}
