import { z } from 'zod';
import type { ErrorCode } from './core/errors';
import { INTEGRATION_IDS } from './core/integrations';
import { PROVIDER_IDS } from './core/capabilities';

/**
 * What each error code means and what its `details` carry — the one description openapi.yaml's per-code error
 * union is generated from (src/codegen/openapi-errors.ts), so a client can rely on, say, `setup_url` being there
 * for INTEGRATION_NOT_CONNECTED. A key is required only where every answer with that code carries it (and
 * `details` itself where `{}` would not do): the component tests validate every answer against openapi.yaml, so a
 * promise the Hub does not keep fails them. Objects stay open (more keys may come); null = the code has no details.
 */

const integration = z.enum(INTEGRATION_IDS).describe('The integration a person must act on.');
const setupUrl = z
  .url()
  .describe(
    'Where a person connects (or reconnects) the integration: a short-lived signed connect link, for a browser (GET /integrations/google/connect, or /integrations/microsoft/connect for outlook_*).',
  );
const scopes = (what: string) => z.array(z.string()).describe(what);
const reason = (what: string) => z.string().describe(what);
const upstreamStatus = z.int().describe('The HTTP status the vendor (Google, Microsoft Graph) answered with.');

export interface ErrorDoc {
  /** What the code means, for the spec's table and each error's description. */
  meaning: string;
  details: z.ZodType | null;
}

/** Whether every answer with this code carries details: those whose schema `{}` does not satisfy. */
export const detailsAlwaysSent = (doc: ErrorDoc): boolean => doc.details !== null && !doc.details.safeParse({}).success;

export const ERROR_DOCS: Readonly<Record<ErrorCode, ErrorDoc>> = {
  INTEGRATION_NOT_CONNECTED: {
    meaning:
      "The customer (or end user) has not connected an integration the tool could use: a person must connect one at `details.setup_url` (the first of `details.integrations`, every integration that would do — only the pinned provider's when the call named `provider`).",
    details: z.object({
      integration,
      setup_url: setupUrl,
      integrations: z
        .array(integration)
        .describe('Every integration that would do for the call (google_calendar and outlook_calendar for a calendar tool), in the order offered.')
        .optional(),
      provider: z.enum(PROVIDER_IDS).describe('The provider the call pinned (`inputs.provider`), when it did.').optional(),
    }),
  },
  INTEGRATION_EXPIRED: {
    meaning:
      'The OAuth grant expired or was revoked and could not be refreshed: a person must reconnect at `details.setup_url`. `details.reason` when known: `token_rejected` (the vendor refused the access token and a refresh could not fix it), or why the grant ended (`revoked`, `time_limited_access`, `testing_mode`, `inactive`, `reauth_required`, `admin_policy_enforced` — the Workspace or Entra administrator blocks the app: reconnecting helps only once an administrator allows it; Microsoft also names `password_changed` and `user_disabled`).',
    details: z.object({ integration, setup_url: setupUrl, reason: reason('Why the grant is no longer usable.').optional() }),
  },
  INTEGRATION_PERMISSION_DENIED: {
    meaning:
      'The connection lacks scopes the tool needs (checked before any vendor call, or the vendor refused for lack of them): reconnect at `details.setup_url`.',
    details: z.object({
      integration,
      setup_url: setupUrl,
      required_scopes: scopes('The scopes the tool needs (short names, e.g. `calendar.events`).'),
      granted_scopes: scopes('The scopes the connection holds.'),
      missing_scopes: scopes('Those of required_scopes the grant does not cover (when the Hub found them missing before calling the vendor).').optional(),
      reason: reason('`insufficient_scopes` when the vendor refused the call for lack of scopes.').optional(),
    }),
  },
  TOOL_NOT_FOUND: {
    meaning: 'No such tool (`details.available_tools`), or a known tool whose version matches nothing (`details.available_versions`).',
    details: z.union([
      z.object({ available_tools: z.array(z.string()).describe('Every tool name the Hub has.') }),
      z.object({ available_versions: z.array(z.string()).describe("The named tool's versions that are not blocked.") }),
    ]),
  },
  EXTERNAL_API_ERROR: {
    meaning:
      'The vendor (Google, Microsoft Graph) answered with an error or could not be reached; `retryable` says whether repeating the call may help. A send the mail provider (Gmail, Outlook) did not confirm carries `details.outcome` (`not_sent`: the Hub checked Sent, nothing went out; `unknown`: it may have, `details.verification` says why the Hub cannot tell).',
    details: z.object({
      reason: reason(
        "The vendor's reason (Google's `invalid`, `backendError`…; Graph's error code) or the Hub's (`timeout`, `network`, `circuit_open`, `refresh_failed`, `unexpected_response`…).",
      ).optional(),
      upstream_status: upstreamStatus.optional(),
      message: z.string().describe("The vendor's own message, scrubbed, at most 300 characters.").optional(),
      scope: reason(
        "With `circuit_open`: whose circuit is open (`connection`, or `integration` for an outage of the whole integration, Google's or Microsoft's).",
      ).optional(),
      outcome: z
        .enum(['unknown', 'not_sent'])
        .describe('A write the vendor did not confirm: `not_sent` (checked, nothing happened) or `unknown` (check before repeating with a new request_id).')
        .optional(),
      verification: z
        .enum(['no_read_scope', 'scan_limit', 'failed', 'not_found_yet'])
        .describe('Why a send stays `unknown`: the connection cannot read Sent, too much newer sent mail, the check failed, or not in Sent yet.')
        .optional(),
    }),
  },
  RATE_LIMITED: {
    meaning:
      "A rate limit was hit; wait `retry_after_s` (also `Retry-After`). `details.scope`: `customer`, `agent`, `distinct_agents` (the Hub's limits, with the RateLimit headers), `upstream` (the vendor's rate limit: Google's, or Graph's throttling) or `upstream_quota` (a Google usage quota, or a mailbox budget the Hub keeps: Gmail units, Outlook requests or Outlook upload bytes). `retryable: false` without `retry_after_s`: one request larger than the whole budget, which no wait lets through.",
    details: z.object({
      scope: reason('Which limit was hit.'),
      reason: reason("The vendor's reason, or the Hub's (`mailbox_quota`, `mailbox_upload_quota`, `mailbox_busy`).").optional(),
      limit: z.int().describe('The limit (points, quota units, requests or bytes per window).').optional(),
      window_s: z.int().describe("The limit's window in seconds.").optional(),
      cost: z.int().describe('What the refused request would have spent of a mailbox budget: quota units, 1 request, or its body in bytes.').optional(),
      cooldown_until: z.iso.datetime().describe('The Hub answered itself: until when the vendor asked it to leave the account alone.').optional(),
    }),
  },
  VALIDATION_ERROR: {
    meaning: 'The body, inputs, path or query is invalid; `details.issues` names each field (at most 20).',
    details: z.object({
      issues: z
        .array(
          z.object({
            path: z.string().describe('The offending field, e.g. `inputs.attendees[0]`, or `(root)`.'),
            message: z.string(),
          }),
        )
        .describe('What is wrong, per field (paths and messages cut to 200 characters).'),
      truncated: z.literal(true).describe('Present when there were more than the 20 issues listed.').optional(),
    }),
  },
  UNAUTHORIZED: {
    meaning: 'Missing, malformed or wrong service secret, or an expired or revoked service key (admin API: the Bearer token, or the admin API is off).',
    details: null,
  },
  FORBIDDEN: {
    meaning:
      'A service key used outside its scope (`details.reason`: `customer_out_of_scope`, `agent_out_of_scope`, `tool_out_of_scope`), refused before any lookup; on the admin API, a token acting beyond its customer.',
    details: z.object({ reason: reason('Which scope of the service key the call is outside of.').optional() }),
  },
  POLICY_DENIED: {
    meaning:
      "A policy of the customer or agent, or a rule of the Hub's, refused the call before any credential lookup or vendor call. `details.rule`: `enabled_tools`, `max_side_effects`, `require_request_id_for_writes`, `require_conversation_id`, `email_allowed_recipient_domains`, `max_tool_calls_per_conversation`, `max_conversations_per_agent_per_hour` (`details.retry_after_s`: when this agent may open a new conversation; it may continue the ones it has), or `tool_version_blocked` (the version `tool` resolved to is blocked; `details.replacement` says what to call).",
    details: z.object({
      rule: reason('The rule that refused the call.'),
      policy: z.enum(['customer', 'agent']).describe("Whose policy the rule is (the agent's overrides the customer's field by field).").optional(),
      limit: z.int().describe('`max_tool_calls_per_conversation`: the budget; `max_conversations_per_agent_per_hour`: the cap.').optional(),
      window_s: z.int().describe('`max_conversations_per_agent_per_hour`: the window (3600).').optional(),
      retry_after_s: z.int().describe('`max_conversations_per_agent_per_hour`: seconds until this agent may open a new conversation.').optional(),
      refused_domains: z.array(z.string()).describe('`email_allowed_recipient_domains`: the recipient domains not allowed.').optional(),
      tool_version: z.string().describe('`tool_version_blocked`: the blocked version.').optional(),
      replacement: z.string().describe('`tool_version_blocked`: what to call instead.').optional(),
    }),
  },
  RESOURCE_NOT_FOUND: {
    meaning:
      'The vendor does not know the id (event, message, thread), or no such endpoint. `details.recently_created`: an event this Hub created moments ago that the vendor does not show yet — retryable.',
    details: z.object({
      upstream_status: upstreamStatus.optional(),
      reason: reason("The vendor's reason.").optional(),
      event_id: z.string().describe('The event the vendor does not know.').optional(),
      calendar_id: z.string().describe('The calendar it was looked for on.').optional(),
      message_id: z.string().describe('The message the vendor does not know.').optional(),
      thread_id: z.string().describe('The thread (Gmail thread, Outlook conversation) the vendor does not know.').optional(),
      recently_created: z.literal(true).describe('The vendor has not shown an event this Hub just created yet; retry.').optional(),
    }),
  },
  CONFLICT: {
    meaning:
      'The request conflicts with one already made: `details.reason` `request_id_reused` (same request_id, other inputs), `request_in_progress` (the first call with it still runs — retry after `retry_after_s`), `concurrent_change` (an event kept changing under calendar_update_event — retryable).',
    details: z.object({
      reason: reason('What the request conflicts with.').optional(),
      request_id: z.string().describe('`request_id_reused`: the request_id.').optional(),
      event_id: z.string().describe('The event concerned.').optional(),
    }),
  },
  PAYLOAD_TOO_LARGE: {
    meaning: 'The body exceeds 1 MiB.',
    details: z.object({ limit_bytes: z.int().describe('The limit.').optional() }),
  },
  INTERNAL_ERROR: { meaning: 'A bug; logged with the request id, no internals in the answer.', details: null },
  SERVICE_UNAVAILABLE: {
    meaning: 'A dependency of the Hub (the credential store, the idempotency store) is unavailable; retry after `retry_after_s`.',
    details: z.object({ reason: reason('What is unavailable.').optional() }),
  },
  PRECONDITION_FAILED: { meaning: 'Admin API: the `If-Match` ETag no longer matches (someone changed or removed it); fetch it again.', details: null },
  PRECONDITION_REQUIRED: { meaning: 'Admin API: replacing an existing policy needs `If-Match` with its ETag.', details: null },
};
