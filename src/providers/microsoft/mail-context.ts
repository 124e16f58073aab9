import type { z } from 'zod';
import type { VendorCall, VendorOp } from '../../core/vendor-call';
import { type HubError, type Result, hubError, ok } from '../../core/errors';
import type { Logger } from '../../logger';
import type { HtmlToText } from '../../tools/email/html-text';
import type { ToolCache } from '../../tools/tool-cache';
import { type GraphRequest, graphFetch, sizedGraphRequest } from './graph-request';

/** What the Outlook mail adapter needs: one tool call's way to Graph and the call's own services. */
export interface GraphMailDeps {
  /** One Graph request with the connection's token, inside the call's resilience (src/core/vendor-call.ts). */
  call: VendorCall;
  /** `https://graph.microsoft.com/v1.0`, or the sandbox's. */
  graphUrl: string;
  cache: ToolCache;
  connection: { credentialId: string; accountEmail: string | null; scopes: readonly string[] };
  /** The tool call's deadline. */
  deadline: AbortSignal;
  now: () => number;
  logger: Pick<Logger, 'info' | 'warn'>;
  htmlToText: HtmlToText;
  maxBodyChars: number;
  /**
   * How long after a send its copy may still be on its way to Sent Items (and visible nowhere): until then a
   * lookup that finds nothing cannot say "not sent". Default 60 s (mail-send.ts).
   */
  sentItemsSettleMs?: number;
}

export interface MailContext extends GraphMailDeps {
  /** One request, its answer checked against `schema`; a failure is the classifier's HubError. */
  graph<S extends z.ZodType>(op: VendorOp, req: GraphRequest, schema: S): Promise<Result<z.output<S>>>;
}

/**
 * Every request asks for immutable ids (learn.microsoft.com/graph/outlook-immutable-id: "This header only applies
 * to the request it is included with"): a message keeps its id when it moves — a draft's id is its sent copy's id
 * in Sent Items, which is what makes a send checkable.
 */
export const IMMUTABLE_IDS = 'IdType="ImmutableId"';

export const unexpectedAnswer = (operation: string): HubError =>
  hubError('EXTERNAL_API_ERROR', `Microsoft answered ${operation} with an unexpected response`, {
    retryable: false,
    details: { reason: 'unexpected_response', operation },
  });

export function mailContext(deps: GraphMailDeps): MailContext {
  return {
    ...deps,
    async graph(op, req, schema) {
      const prefer = [IMMUTABLE_IDS, req.headers?.Prefer].filter(Boolean).join(', ');
      // Serialized once: the mailbox's upload budget is charged these very bytes before each attempt sends them.
      const sized = sizedGraphRequest({ ...req, headers: { ...req.headers, Prefer: prefer } });
      const answer = await deps.call({ ...op, uploadBytes: sized.uploadBytes }, (signal, token) => graphFetch(deps.graphUrl, token, sized.req, signal));
      if (!answer.ok) return answer;
      const parsed = schema.safeParse(answer.value.body);
      if (parsed.success) return ok(parsed.data);
      // The failing paths only, never the data: it is a customer's mail.
      deps.logger.warn(
        { operation: op.operation, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), code: i.code })) },
        'unexpected Microsoft response',
      );
      return { ok: false, error: unexpectedAnswer(op.operation) };
    },
  };
}

/**
 * Graph's ids (messages, conversations, attachments) are base64 in either alphabet. Anything else cannot be one:
 * refused before a request, so no id an agent passes can add a path segment (`..`), a query or a fragment.
 */
export const GRAPH_ID = /^[A-Za-z0-9+/_=-]{1,1024}$/;

export const notFound = (what: string, id: string): HubError =>
  hubError('RESOURCE_NOT_FOUND', `No ${what} with id "${id.slice(0, 200)}" in this mailbox`, { details: { [`${what}_id`]: id.slice(0, 200) } });

/** Graph's "no such item" (404, or 400 for an id that cannot be one) as the port words it. */
export const notFoundAs = (error: HubError, what: string, id: string): HubError => (error.code === 'RESOURCE_NOT_FOUND' ? notFound(what, id) : error);

export const messagePath = (id: string) => `/me/messages/${encodeURIComponent(id)}`;

/** An OData string literal: quotes doubled (query-parameters, "Escaping single quotes"). */
export const odataString = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** A Graph DateTimeOffset as the port writes dates: ISO 8601 UTC, seconds, Z. */
export function isoUtc(value: string | null | undefined): string {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A scope as Graph spells it, without its resource prefix, lowercased: `Mail.Read` → `mail.read`. */
export const bareScope = (scope: string) => scope.replace(/^https:\/\/graph\.microsoft\.com\//i, '').toLowerCase();
export const hasAnyScope = (granted: readonly string[], wanted: readonly string[]) => granted.some((g) => wanted.includes(bareScope(g)));
