import { ADMIN_OPERATIONS, type AdminOperations } from './api.generated.js';
import type { HubClientError } from './errors.js';
import { type CallControl, type FetchLike, answerOf, sender } from './http.js';

export interface HubAdminClientOptions {
  /** Where the Hub listens, e.g. https://hub.internal.example (no trailing path). */
  baseUrl: string;
  /** An admin JWT (`npm run admin-token -- --admin`, or `-- --customer <uuid>` for one customer only). */
  adminToken: string;
  fetch?: FetchLike;
  /** Per call, in ms (default 30 000). */
  timeoutMs?: number;
}

/**
 * If-Match as HTTP wants it: a body's `etag` is the bare tag, the ETag header quotes it; either may be passed
 * back (a quoted tag, a weak one or `*` is sent as it is).
 */
const entityTag = (tag: string) => (/^(\*|(W\/)?".*")$/.test(tag) ? tag : `"${tag}"`);

type AdminOperationId = keyof AdminOperations;
/** An operation's path or query parameters; nothing when it takes none. */
type Fields<T> = T extends Record<string, never> ? unknown : T;

/**
 * What one admin method takes: its path and query parameters by their names in openapi.yaml (`customer_id`,
 * `user_id`…), `body` where it has one, `ifMatch` (the ETag an earlier answer carried) where it honours If-Match.
 */
export type AdminRequest<K extends AdminOperationId> = Fields<AdminOperations[K]['params']> &
  Fields<AdminOperations[K]['query']> &
  (AdminOperations[K]['body'] extends undefined ? unknown : { body: AdminOperations[K]['body'] }) &
  ((typeof ADMIN_OPERATIONS)[K]['ifMatch'] extends true ? { ifMatch?: string } : unknown) &
  CallControl;

/** A success narrowed by its `status` (a policy PUT answers 201 when it created, 200 when it replaced), or the error. */
export type AdminAnswer<K extends AdminOperationId> =
  | {
      [S in keyof AdminOperations[K]['answers']]: {
        ok: true;
        status: S;
        value: AdminOperations[K]['answers'][S];
        /** The answer's ETag header as sent (quoted), when it has one; policies also carry it bare as `value.etag`. */
        etag: string | null;
      };
    }[keyof AdminOperations[K]['answers']]
  | { ok: false; error: HubClientError };

type Args<K extends AdminOperationId> = object extends AdminRequest<K> ? [request?: AdminRequest<K>] : [request: AdminRequest<K>];

/** One method per admin operation of openapi.yaml, named by its operationId (`createConnectLink`, `putCustomerPolicy`…). */
export type HubAdminClient = { [K in AdminOperationId]: (...args: Args<K>) => Promise<AdminAnswer<K>> };

/**
 * A client for the Hub's admin API (`/api/admin/…`), built from the table generated from openapi.yaml, so each
 * operation the spec has is a method with the spec's types. Failures are values, as with createHubClient; admin
 * calls are not retried (an admin decides, and policy writes are guarded by If-Match instead).
 */
export function createHubAdminClient(options: HubAdminClientOptions): HubAdminClient {
  const send = sender({ baseUrl: options.baseUrl, authorization: `Bearer ${options.adminToken}`, fetch: options.fetch, timeoutMs: options.timeoutMs });
  const client: Record<string, (request?: Record<string, unknown>) => Promise<unknown>> = {};
  for (const [id, op] of Object.entries(ADMIN_OPERATIONS)) {
    client[id] = async (request = {}) => {
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(request[name])));
      const query = new URLSearchParams();
      for (const name of op.query) if (request[name] !== undefined && request[name] !== null) query.set(name, String(request[name]));
      const search = query.size > 0 ? `?${query}` : '';
      const headers: Record<string, string> = typeof request.ifMatch === 'string' ? { 'if-match': entityTag(request.ifMatch) } : {};
      const call = { signal: request.signal as AbortSignal | undefined, timeoutMs: request.timeoutMs as number | undefined };
      const exchange = await send(op.method, `${path}${search}`, op.body ? request.body : undefined, call, headers);
      const answer = answerOf(exchange);
      return answer.ok ? { ...answer, etag: exchange.ok ? exchange.header('etag') : null } : answer;
    };
  }
  return client as unknown as HubAdminClient;
}
