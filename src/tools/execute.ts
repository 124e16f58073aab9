import { type OnVendorAttempt, noteTokenRefresh, observeAttempt } from '../audit/vendor-ops';
import { scopeRefusal } from '../access/key-scope';
import type { PolicyGuard } from '../access/policy-guard';
import { type ServicePrincipal, principalName } from '../access/service-keys';
import { type HubError, type Result, fail, hubError } from '../core/errors';
import { PARSE_OPTIONS, invalidInputs, toIssues, validationError } from '../core/validation';
import type { ConnectionResolver } from '../integrations/connections';
import { rulesFor, scopesFor } from '../integrations/scopes';
import { PROVIDER_IDS, type Permission, type ProviderId } from '../core/capabilities';
import type { IntegrationId } from '../core/integrations';
import type { Logger } from '../logger';
import type { IdempotencyGuard, WriteAttempt } from '../protection/idempotency';
import type { RateLimiter } from '../protection/rate-limit';
import { type Upstream, type UpstreamOp, deadlineSignal } from '../resilience';
import { executeRequestSchema, readChargeKey, readableRequestId, readableToolName, readableUserId } from './execute-request';
import type { VersionInfo } from './deprecation';
import type { Resolution, ToolRegistry } from './registry';
import type { RecentWrites } from '../core/recent-writes';
import type { ToolCache } from './tool-cache';
import { chargeLimits } from './charge';
import type { HtmlConverter, HtmlToText } from './email/html-text';
import type { Connection, PortEnv, ProviderPorts, ToolContext, ToolSettings } from './types';
import type { CalendarPort } from '../core/calendar';
import type { MailPort } from '../core/mail';
import type { VendorCall } from '../core/vendor-call';
import type { HubMetrics } from '../observability/metrics';
import { type Tracing, spanOutcome } from '../observability/tracing';

export interface ExecuteDeps {
  tools: ToolRegistry;
  connections: ConnectionResolver;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** At most once per (customer, tool, request_id) for tools that write. */
  idempotency: IdempotencyGuard;
  /** The ports of each provider's adapters (src/providers/index.ts): what ctx.calendar is made from. */
  ports: ProviderPorts;
  /** Timeouts, safe retries and circuit breakers around every Google call. */
  upstream: Upstream;
  /** The whole tool call's budget, retries and waits included. */
  deadlineMs: number;
  settings: ToolSettings;
  cache: ToolCache;
  /** Adapters' memory of their connection's recent writes: shared by the replicas when Redis is configured. */
  recent: RecentWrites;
  /** HTML mail → text off the event loop. */
  html: HtmlConverter;
  /** The customer's and agent's policies (POLICY_DENIED), checked before any credential lookup. */
  policyGuard: PolicyGuard;
  /** Defaults to Date.now. */
  now?: () => number;
  /** Rate-limit rejections by scope (the route records the call itself). */
  metrics: HubMetrics;
  /** Spans for rate limiting, credential resolution and idempotency, under the route's execute span. */
  tracing: Tracing;
}

/** Who called, once readable (the access log carries these ids; metrics never do). */
export interface Caller {
  customerId: string;
  agentId: string;
  userId: string | null;
  /** context.conversation_id once the body parsed (its receipt reads it from here rather than parsing it again). */
  conversationId?: string | null;
}

/**
 * A finished call. A success always names its tool; a failure may not (the request named none readably).
 * `version`: the tool version that answered, once the `tool` string resolved to one.
 */
export type Execution = {
  requestId: string;
  apiCalls: number /** An earlier answer to the same request_id. */;
  replay?: true;
  /**
   * Refused before the tool was found and its inputs read (out of scope, rate limited, an unreadable body, an
   * unknown or blocked tool): its receipt keeps no payload, so it has a fixed size whatever the body held.
   */
  refused?: true;
  version?: VersionInfo;
  caller?: Caller;
  /** The integration whose connection the call resolved (its receipt names it): absent when it reached for none. */
  integration?: IntegrationId;
} & ({ ok: true; tool: string; value: unknown } | { ok: false; tool: string | null; error: HubError });

/** The vendor refused the token or its scopes: say where a person fixes that (and what is missing), as the connection checks do. */
function withSetupUrl(error: HubError, connection: Connection | null, permissions: readonly Permission[]): HubError {
  if (!connection || (error.code !== 'INTEGRATION_EXPIRED' && error.code !== 'INTEGRATION_PERMISSION_DENIED')) return error;
  if (error.details?.setup_url !== undefined) return error; // the connection already said
  const { short } = rulesFor(connection.integration);
  const scopes =
    error.code === 'INTEGRATION_PERMISSION_DENIED'
      ? { required_scopes: scopesFor(connection.integration, permissions).map(short), granted_scopes: connection.scopes.map(short) }
      : {};
  return { ...error, details: { ...error.details, integration: connection.integration, ...scopes, setup_url: connection.setupUrl() } };
}

/**
 * The provider an agent pinned for this call: the `provider` input every calendar and email tool takes
 * (tools/provider-input.ts). Absent → the provider choice rule decides.
 */
function pinnedProvider(inputs: unknown): ProviderId | null {
  const pin = (inputs as { provider?: unknown } | null)?.provider;
  return typeof pin === 'string' && (PROVIDER_IDS as readonly string[]).includes(pin) ? (pin as ProviderId) : null;
}

/** Why a `tool` string names nothing to run: an unknown name, a version that matches nothing, a blocked version. */
function unresolved(tools: ToolRegistry, spec: string, resolution: Exclude<Resolution, { kind: 'found' }>): HubError {
  switch (resolution.kind) {
    case 'unknown_tool':
      return hubError('TOOL_NOT_FOUND', `Unknown tool "${spec}"`, { details: { available_tools: tools.names() } });
    case 'no_such_version':
      return hubError('TOOL_NOT_FOUND', `No version of the tool matches "${spec}"; available: ${resolution.available.join(', ')}`, {
        details: { available_versions: resolution.available },
      });
    case 'blocked': {
      const { tool } = resolution;
      const replacement = tool.lifecycle?.replacement;
      return hubError('POLICY_DENIED', `${tool.name}@${tool.version} is blocked${replacement ? `; call ${replacement} instead` : ''}`, {
        details: { rule: 'tool_version_blocked', tool_version: tool.version, ...(replacement ? { replacement } : {}) },
      });
    }
  }
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
  ids: {
    reqId: string;
    fallbackRequestId: string;
    /** The audit trail's view of each vendor attempt (Google's or Microsoft Graph's). */
    onVendorAttempt?: OnVendorAttempt;
    /** Who authenticated (a scoped key, or a configured secret). */
    principal?: ServicePrincipal;
  },
): Promise<Execution> {
  const { fallbackRequestId } = ids;
  // Before anything that costs more than reading three fields — the full parse, a database query, a Google
  // call: a request over its limits costs none of them, however large its body. Every call is charged before
  // anything is written for it, its receipt included (refused calls leave a receipt of a fixed size).
  const key = readChargeKey(body);
  const charged = key && deps.tools.get(key.tool);
  const refusal = (error: HubError, tool: string | null, caller?: Caller): Execution => ({
    ok: false,
    tool,
    requestId: readableRequestId(body) ?? fallbackRequestId,
    error,
    apiCalls: 0,
    refused: true,
    ...(caller ? { caller } : {}),
  });
  const limited = (allowed: Result<void>): HubError | null => {
    if (allowed.ok) return null;
    deps.metrics.rateLimited(String(allowed.error.details?.scope ?? 'unknown'));
    return allowed.error;
  };
  // A service key acting outside its scope is refused first: it must not even spend another customer's limits.
  // The refusal is charged to the key itself, and its receipt is the key's, never the named customer's.
  const outOfScope = key && scopeRefusal(ids.principal, key.customerId, key.agentId, charged);
  if (outOfScope) {
    const over = limited(await deps.rateLimiter.consumeRefused(principalName(ids.principal!)));
    return refusal(over ?? outOfScope, key.tool);
  }
  // A body whose tool, customer or agent cannot be read: charged to the credential, refused by the parse below.
  if (!key && ids.principal) {
    const over = limited(await deps.rateLimiter.consumeRefused(principalName(ids.principal)));
    if (over) return refusal(over, readableToolName(body));
  }
  // A create Google deduplicates reads its idempotency record beside the charge (Redis: one round trip for both).
  const requestIdRead = charged?.deduplicatedUpstream ? readableRequestId(body) : undefined;
  const prefetched =
    key && charged && requestIdRead !== undefined
      ? deps.idempotency.prefetch({ customerId: key.customerId, tool: charged.name, requestId: requestIdRead })
      : null;
  if (key) {
    // An unknown tool is charged as a read: a flood of TOOL_NOT_FOUND calls spends its caller's limits too.
    const over = await chargeLimits(deps, key.customerId, key.agentId, charged ?? null);
    if (over) return refusal(over, charged ? charged.name : key.tool, { customerId: key.customerId, agentId: key.agentId, userId: readableUserId(body) });
  }

  const parsed = executeRequestSchema.safeParse(body, PARSE_OPTIONS);
  if (!parsed.success) {
    const caller = key ? { customerId: key.customerId, agentId: key.agentId, userId: readableUserId(body) } : undefined;
    return refusal(validationError('The request body does not match the contract', toIssues(parsed.error)), readableToolName(body), caller);
  }
  const request = parsed.data;
  const requestId = request.context?.request_id ?? fallbackRequestId;
  let version: VersionInfo | undefined;
  let connection: Connection | null = null; // resolved below, for tools of a capability
  const who: Caller = {
    customerId: request.customer_id.toLowerCase(),
    agentId: request.agent_id.toLowerCase(),
    userId: request.user_id ?? null,
    conversationId: request.context?.conversation_id ?? null,
  };
  const done = (outcome: Result<unknown>, apiCalls = 0): Execution => ({
    ...(outcome.ok
      ? { ok: true as const, tool: request.tool, value: outcome.value, requestId, apiCalls }
      : { ok: false as const, tool: request.tool, error: outcome.error, requestId, apiCalls }),
    caller: who,
    ...(version ? { version } : {}),
    ...(connection ? { integration: connection.integration } : {}),
  });

  // A body that parses names a tool and a caller readChargeKey read too: a known tool has been charged above.
  const resolution = deps.tools.resolve(request.tool);
  if (resolution.kind !== 'found') {
    if (resolution.kind === 'blocked') version = deps.tools.versionInfo(resolution.tool);
    return { ...done(fail(unresolved(deps.tools, request.tool, resolution))), refused: true };
  }
  const tool = resolution.tool;
  version = deps.tools.versionInfo(tool);

  const caller = { customerId: request.customer_id.toLowerCase(), userId: request.user_id ?? null };
  const agentId = request.agent_id.toLowerCase();

  const input = tool.input.safeParse(request.inputs, PARSE_OPTIONS);
  if (!input.success) {
    return done(fail(invalidInputs(tool.name, toIssues(input.error, 'inputs'))));
  }

  let denied = deps.policyGuard({
    customerId: caller.customerId,
    agentId,
    tool,
    input: input.data,
    hasRequestId: request.context?.request_id != null,
    conversationId: request.context?.conversation_id ?? null,
  });
  if (denied instanceof Promise) denied = await denied; // only when policies must be read or Redis counts
  if (denied) return done(fail(denied));

  if (tool.capability !== null && (tool.needsConnection?.(input.data) ?? true)) {
    const pin = pinnedProvider(input.data);
    const connect = () => deps.connections.connect(tool, caller, pin);
    const resolved = deps.tracing.enabled
      ? await deps.tracing.inSpan(
          'hub.credentials',
          async (span) => {
            const r = await connect();
            spanOutcome(span, r);
            if (r.ok) span?.setAttribute('hub.integration', r.value.integration);
            return r;
          },
          { 'hub.capability': tool.capability },
        )
      : await connect();
    if (!resolved.ok) return done(resolved);
    connection = resolved.value;
  }

  let apiCalls = 0;
  let attempt: WriteAttempt | undefined; // set by the idempotency guard for a write with a request_id
  let logger: Logger | undefined; // made on first use: most calls never log
  const log = () => (logger ??= deps.logger.child({ req_id: ids.reqId, request_id: requestId, tool: tool.name }));
  let deadline: AbortSignal | undefined; // a timer only for tools that look at it (those calling Google)
  let htmlToText: HtmlToText | undefined; // made on first use: most calls convert no HTML
  let calendar: CalendarPort | undefined; // made on first use, for tools of the calendar capability
  let mail: MailPort | undefined; // made on first use, for tools of the mail capability
  /**
   * Runs one vendor request with the connection's current access token (refreshed first when about to expire;
   * refreshed once more and `fn` run again when the vendor rejects a token that looked valid), under the
   * resilience layer, counting each attempt as an api call.
   */
  const callVendor = async <T>(op: UpstreamOp, fn: (signal: AbortSignal, accessToken: string) => Promise<T>): Promise<Result<T>> => {
    if (connection === null) throw new Error(`${tool.name} calls its vendor but declares no integration`);
    const failed = (error: HubError) => fail(withSetupUrl(error, connection, tool.permissions));
    let refreshed = false;
    const countRequest = () => {
      apiCalls++; // a token refresh this call made is a request to the vendor too
      refreshed = true;
    };
    const t0 = performance.now();
    const token = await connection.accessToken(ctx.deadline, countRequest);
    noteTokenRefresh(ids.onVendorAttempt, refreshed, token, t0);
    if (!token.ok) return failed(token.error);
    // Whose call it is: the connection's own circuit, and the account's quotas and cool-downs.
    const tenant = { connectionId: connection.credentialId, account: connection.accountEmail, customerId: caller.customerId };
    const callOnce = (accessToken: string) =>
      deps.upstream.call(op, (signal) => observeAttempt(ids.onVendorAttempt, op.operation, fn(signal, accessToken)), {
        deadline: ctx.deadline,
        onAttempt: () => apiCalls++,
        tenant,
      });
    let answer = await callOnce(token.value);
    if (!answer.ok && tokenRejected(answer.error)) {
      refreshed = false;
      const t1 = performance.now();
      const fresh = await connection.refresh(ctx.deadline, countRequest);
      noteTokenRefresh(ids.onVendorAttempt, refreshed, fresh, t1);
      if (!fresh.ok) return failed(fresh.error);
      answer = await callOnce(fresh.value);
    }
    return answer.ok ? answer : failed(answer.error);
  };
  // A plain object, not a getter: the providers spread their env (`{ ...env, graphUrl }`), which would call a
  // getter and make the call's child logger every time; this makes it only when an adapter logs.
  const adapterLogger: PortEnv['logger'] = {
    info: (...args: Parameters<Logger['info']>) => log().info(...args),
    warn: (...args: Parameters<Logger['warn']>) => log().warn(...args),
  };
  const vendorCall: VendorCall = (op, fn) => callVendor({ integration: connection?.integration ?? '', ...op }, fn);
  const portEnv = (conn: Connection): PortEnv => ({
    call: vendorCall,
    cache: deps.cache,
    recent: deps.recent,
    connection: conn,
    deadline: ctx.deadline,
    maxBodyChars: deps.settings.maxBodyChars,
    now: deps.now ?? Date.now,
    logger: adapterLogger,
    get htmlToText() {
      return ctx.htmlToText;
    },
  });
  const deadlineAt = performance.now() + deps.deadlineMs;
  const ctx: ToolContext = {
    ...caller,
    agentId,
    get deadline() {
      return (deadline ??= deadlineSignal(Math.max(1, Math.round(deadlineAt - performance.now()))));
    },
    get htmlToText() {
      return (htmlToText ??= deps.html.forCall({ key: caller.customerId, deadline: () => ctx.deadline, logger: log }));
    },
    get calendar() {
      if (connection === null) throw new Error(`${tool.name} uses the calendar port but has no connection`);
      return (calendar ??= deps.ports.calendar(connection.integration, portEnv(connection)));
    },
    get mail() {
      if (connection === null) throw new Error(`${tool.name} uses the mail port but has no connection`);
      return (mail ??= deps.ports.mail(connection.integration, portEnv(connection)));
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
  const guard = () =>
    deps.idempotency.run(
      { customerId: caller.customerId, tool: tool.name, requestId: idempotencyKey },
      input.data,
      caller.userId,
      (a) => {
        attempt = a;
        return run();
      },
      { deduplicatedUpstream: tool.deduplicatedUpstream === true, prefetched },
    );
  // The span covers the guard's record, the tool run it fences and the stored answer (or the replay).
  const guarded = await deps.tracing.inSpan('hub.idempotency', async (span) => {
    const g = await guard();
    span?.setAttribute('hub.idempotent_replay', g.replay);
    return g;
  });
  return { ...done(guarded.outcome, guarded.replay ? 0 : apiCalls), ...(guarded.replay ? { replay: true } : {}) };
}
