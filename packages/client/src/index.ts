import type { HubClientError, HubError, TransportError } from './errors.js';
import type { ToolInputs, ToolResults } from './tools.generated.js';

export type { HubClientError, HubError, HubErrorCode, TransportError } from './errors.js';
export type { ToolInputs, ToolResults } from './tools.generated.js';
export { HUB_ERROR_CODES, TOOL_NAMES, TOOL_SIDE_EFFECTS } from './tools.generated.js';
export { verifyWebhook } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookEvent, WebhookVerification } from './webhooks.js';

export type ToolName = keyof ToolInputs & keyof ToolResults;

/** The fetch the client needs (global fetch in Node ≥ 18, browsers, Deno, Bun; or your own). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface HubClientOptions {
  /** Where the Hub listens, e.g. https://hub.internal.example (no trailing path). */
  baseUrl: string;
  /** One of the Hub's HUB_SERVICE_SECRETS. */
  serviceSecret: string;
  fetch?: FetchLike;
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  /** How many times a retryable answer is retried (default 2). */
  maxRetries?: number;
  /** A retry_after_s longer than this (seconds, default 30) is handed back to the caller instead of waited for. */
  maxRetryWaitS?: number;
}

export interface CallOptions {
  customerId: string;
  agentId: string;
  userId?: string | null;
  conversationId?: string | null;
  /** The call's idempotency key; generated when absent and reused by every retry of this call. */
  requestId?: string;
  /** Cancels the call, waits included. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface Metadata {
  execution_time_ms: number;
  api_calls: number;
  request_id: string;
  idempotent_replay?: true;
}

export type Answer<T> = { ok: true; value: T; status: number } | { ok: false; error: HubClientError };

export type ExecuteResult<T extends ToolName> =
  | { ok: true; tool: T; result: ToolResults[T]; metadata: Metadata /** Attempts made (1 = no retry). */; attempts: number }
  | {
      ok: false;
      tool: T;
      error: HubClientError;
      metadata: Metadata | undefined;
      attempts: number /** The request_id every attempt carried. */;
      requestId: string;
    };

export interface HubClient {
  /** Runs one tool; failures are values (`ok: false`) whose `error.code` narrows the details. */
  execute<T extends ToolName>(tool: T, inputs: ToolInputs[T], options: CallOptions): Promise<ExecuteResult<T>>;
  /** Which integrations the customer (or one of its end users) has connected. */
  status(customerId: string, userId?: string, options?: Pick<CallOptions, 'signal' | 'timeoutMs'>): Promise<Answer<IntegrationStatusAnswer>>;
  /** Every tool with its JSON Schemas. */
  catalog(options?: Pick<CallOptions, 'signal' | 'timeoutMs'>): Promise<Answer<{ tools: CatalogTool[] }>>;
}

export interface CatalogTool {
  name: ToolName;
  version: string;
  description: string;
  integration: string | null;
  required_scopes: string[];
  side_effects: 'reads' | 'writes';
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

export interface IntegrationStatusAnswer {
  customer_id: string;
  user_id: string | null;
  integrations: Record<string, { connected: boolean; status: string; tools_available: string[]; setup_url?: string; [key: string]: unknown }>;
}

const transport = (code: TransportError['code'], message: string, details: TransportError['details'] = {}): TransportError => ({
  code,
  message,
  retryable: false,
  details,
});

/** Waits `ms`, or less when `signal` aborts (then resolves false). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A client for the Hub's HTTP API. Plain fetch, no dependencies. A retryable answer (429, 503, a retryable 502…)
 * is retried after the Hub's retry_after_s (else a short backoff) with the same request_id, so a retried write
 * still happens at most once; anything else comes straight back.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the Hub's JSON answer, narrowed by the envelope's `success` where it is read
type AnswerJson = any;

export function createHubClient(options: HubClientOptions): HubClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const maxRetries = options.maxRetries ?? 2;
  const maxWaitS = options.maxRetryWaitS ?? 30;
  const auth = `ServiceSecret ${options.serviceSecret}`;

  /** One HTTP exchange: the parsed JSON and status, or a transport error. */
  async function send(
    method: string,
    path: string,
    body: unknown,
    call: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<{ ok: true; status: number; json: AnswerJson } | { ok: false; error: TransportError }> {
    const timeout = AbortSignal.timeout(call.timeoutMs ?? options.timeoutMs ?? 30_000);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    const headers: Record<string, string> = { authorization: auth, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const res = await doFetch(`${base}${path}`, { method, headers, signal, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      status = res.status;
      text = await res.text();
    } catch (cause) {
      if (call.signal?.aborted) return { ok: false, error: transport('ABORTED', 'The call was aborted', { cause: call.signal.reason }) };
      if (timeout.aborted)
        return { ok: false, error: transport('TIMEOUT', `The Hub did not answer within ${call.timeoutMs ?? options.timeoutMs ?? 30_000} ms`) };
      return { ok: false, error: transport('NETWORK_ERROR', `Could not reach the Hub at ${base}: ${(cause as Error)?.message ?? String(cause)}`, { cause }) };
    }
    try {
      return { ok: true, status, json: JSON.parse(text) };
    } catch {
      return { ok: false, error: transport('INVALID_RESPONSE', `The Hub answered ${status} with a body that is not JSON`, { status }) };
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the error object of an envelope the Hub answered, typed by its code in HubError
  const hubError = (status: number, error: any): HubError => ({ ...error, status });

  async function get<T>(path: string, call: { signal?: AbortSignal; timeoutMs?: number }): Promise<Answer<T>> {
    const answer = await send('GET', path, undefined, call);
    if (!answer.ok) return answer;
    if (answer.status >= 400 && answer.json?.error) return { ok: false, error: hubError(answer.status, answer.json.error) };
    return { ok: true, value: answer.json as T, status: answer.status };
  }

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
        const { json, status } = answer;
        if (json?.success === true) return { ok: true, tool, result: json.result, metadata: json.metadata, attempts: attempt };
        if (json?.success !== false || typeof json.error?.code !== 'string') {
          return {
            ok: false,
            tool,
            error: transport('INVALID_RESPONSE', `The Hub answered ${status} without its envelope`, { status }),
            metadata: undefined,
            attempts: attempt,
            requestId,
          };
        }
        const error = hubError(status, json.error);
        const waitS = error.retry_after_s ?? Math.min(8, 0.25 * 2 ** (attempt - 1));
        const retry = error.retryable && attempt <= maxRetries && waitS <= maxWaitS;
        if (!retry || !(await sleep(waitS * 1000, call.signal))) return { ok: false, tool, error, metadata: json.metadata, attempts: attempt, requestId };
      }
    },
    status: (customerId, userId, call = {}) =>
      get(`/api/internal/integrations/status/${encodeURIComponent(customerId)}/${userId === undefined ? '' : `?user_id=${encodeURIComponent(userId)}`}`, call),
    catalog: (call = {}) => get('/api/internal/tools/', call),
  };
}
