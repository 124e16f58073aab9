import type { IntegrationStatusResponse, Metadata, ToolVersionFields } from './api.generated.js';
import type { HubClientError, HubError } from './errors.js';
import { type Answer, type AnswerJson, type CallControl, type FetchLike, answerOf, hubError, sender, sleep, transport } from './http.js';
import type { TOOL_NAMES, ToolInputs, ToolResults } from './tools.generated.js';

export type { HubClientError, HubError, HubErrorCode, TransportError } from './errors.js';
export type { ErrorDetails, ToolInputs, ToolResults, ToolVersionInputs, ToolVersionResults } from './tools.generated.js';
export { HUB_ERROR_CODES, TOOL_NAMES, TOOL_SIDE_EFFECTS, TOOL_VERSIONS } from './tools.generated.js';
export type * from './api.generated.js';
export { ADMIN_OPERATIONS } from './api.generated.js';
export { createHubAdminClient } from './admin.js';
export type { AdminAnswer, AdminRequest, HubAdminClient, HubAdminClientOptions } from './admin.js';
export type { Answer, CallControl, FetchLike } from './http.js';
export { verifyWebhook } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookEvent, WebhookVerification } from './webhooks.js';

/** What `tool` may be: a tool's name, or a version of it — `email_search@2`, `email_search@2.0`, `email_search@2.0.0`. */
export type ToolName = keyof ToolInputs & keyof ToolResults;
/** A tool's bare name (what the catalog lists). */
export type BareToolName = (typeof TOOL_NAMES)[number];

export interface HubClientOptions {
  /** Where the Hub listens, e.g. https://hub.internal.example (no trailing path). */
  baseUrl: string;
  /** One of the Hub's HUB_SERVICE_SECRETS, or a scoped service key (`hub_sk_…`). */
  serviceSecret: string;
  fetch?: FetchLike;
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  /** How many times a retryable answer is retried (default 2). */
  maxRetries?: number;
  /** A retry_after_s longer than this (seconds, default 30) is handed back to the caller instead of waited for. */
  maxRetryWaitS?: number;
}

export interface CallOptions extends CallControl {
  customerId: string;
  agentId: string;
  userId?: string | null;
  conversationId?: string | null;
  /** The call's idempotency key; generated when absent and reused by every retry of this call. */
  requestId?: string;
}

export type ExecuteResult<T extends ToolName> =
  | {
      ok: true;
      tool: T;
      result: ToolResults[T];
      /** `tool_version` (the exact version that ran), `deprecation` when it is deprecated, `idempotent_replay`… */
      metadata: Metadata;
      /** Attempts made (1 = no retry). */
      attempts: number;
    }
  | {
      ok: false;
      tool: T;
      error: HubClientError;
      metadata: Metadata | undefined;
      attempts: number;
      /** The request_id every attempt carried. */
      requestId: string;
    };

/** The status endpoint's answer (the name earlier versions of this client used). */
export type IntegrationStatusAnswer = IntegrationStatusResponse;

/** One catalog entry: the version a bare name runs at the top level, and every version (newest first). */
export type CatalogTool = ToolVersionFields & { name: BareToolName; versions: ToolVersionFields[] };

export interface HubClient {
  /** Runs one tool (`'email_search'`, or a pinned `'email_search@2'`); failures are values whose `error.code` narrows `details`. */
  execute<T extends ToolName>(tool: T, inputs: ToolInputs[T], options: CallOptions): Promise<ExecuteResult<T>>;
  /** Which integrations the customer (or one of its end users) has connected. */
  status(customerId: string, userId?: string, options?: CallControl): Promise<Answer<IntegrationStatusResponse>>;
  /** Every tool with its versions and JSON Schemas. */
  catalog(options?: CallControl): Promise<Answer<{ tools: CatalogTool[] }>>;
}

/**
 * A client for the Hub's HTTP API. Plain fetch, no dependencies. A retryable answer (429, 503, a retryable 502…)
 * is retried after the Hub's retry_after_s (else a short backoff) with the same request_id, so a retried write
 * still happens at most once; anything else comes straight back.
 */
export function createHubClient(options: HubClientOptions): HubClient {
  const send = sender({
    baseUrl: options.baseUrl,
    authorization: `ServiceSecret ${options.serviceSecret}`,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  });
  const maxRetries = options.maxRetries ?? 2;
  const maxWaitS = options.maxRetryWaitS ?? 30;

  return {
    async execute(tool, inputs, call) {
      const requestId = call.requestId ?? globalThis.crypto.randomUUID();
      const body = {
        tool,
        agent_id: call.agentId,
        customer_id: call.customerId,
        user_id: call.userId ?? null,
        inputs,
        context: { request_id: requestId, conversation_id: call.conversationId ?? null },
      };
      for (let attempt = 1; ; attempt++) {
        const answer = await send('POST', '/api/internal/tools/execute/', body, call);
        if (!answer.ok) return { ok: false, tool, error: answer.error, metadata: undefined, attempts: attempt, requestId };
        const json: AnswerJson = answer.json;
        if (json?.success === true) return { ok: true, tool, result: json.result, metadata: json.metadata, attempts: attempt };
        if (json?.success !== false || typeof json.error?.code !== 'string') {
          const error = transport('INVALID_RESPONSE', `The Hub answered ${answer.status} without its envelope`, { status: answer.status });
          return { ok: false, tool, error, metadata: undefined, attempts: attempt, requestId };
        }
        const error: HubError = hubError(answer.status, json.error);
        const waitS = error.retry_after_s ?? Math.min(8, 0.25 * 2 ** (attempt - 1));
        const retry = error.retryable && attempt <= maxRetries && waitS <= maxWaitS;
        if (!retry || !(await sleep(waitS * 1000, call.signal))) return { ok: false, tool, error, metadata: json.metadata, attempts: attempt, requestId };
      }
    },
    status: async (customerId, userId, call = {}) =>
      answerOf(
        await send(
          'GET',
          `/api/internal/integrations/status/${encodeURIComponent(customerId)}/${userId === undefined ? '' : `?user_id=${encodeURIComponent(userId)}`}`,
          undefined,
          call,
        ),
      ),
    catalog: async (call = {}) => answerOf(await send('GET', '/api/internal/tools/', undefined, call)),
  };
}
