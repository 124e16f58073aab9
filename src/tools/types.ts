import type { z } from 'zod';
import type { CalendarPort } from '../core/calendar';
import type { MailPort } from '../core/mail';
import type { VendorCall } from '../core/vendor-call';
import type { Result } from '../core/errors';
import type { Capability, Permission, ProviderId } from '../core/capabilities';
import type { IntegrationId } from '../core/integrations';
import { contractView } from '../integrations/scopes';
import type { Logger } from '../logger';
import type { EarlierAttempt } from '../protection/idempotency-store';
import type { WorkingHours } from '../core/working-hours';
import type { EventIds } from './calendar/event-id';
import type { HtmlToText } from './email/html-text';
import type { RecentWrites } from '../core/recent-writes';
import type { ToolCache } from './tool-cache';

export type SideEffects = 'reads' | 'writes';

/**
 * Tool lifecycle: `active` runs and is offered; `deprecated` still runs, its answers carry `metadata.deprecation`
 * and the Deprecation/Sunset headers; `blocked` answers POLICY_DENIED (`tool_version_blocked`).
 */
export type ToolStatus = 'active' | 'deprecated' | 'blocked';

/** Where a version stands in its lifecycle; absent = active. Times are ISO 8601 UTC instants. */
export interface ToolLifecycle {
  status: ToolStatus;
  /** When the version was (or will be) deprecated: required for `deprecated` (the Deprecation header's date). */
  deprecatedAt?: string;
  /** After this the version may stop answering (the Sunset header). */
  sunsetAt?: string;
  /** What to call instead, as `name@major` (checked at start to resolve to a registered version). */
  replacement?: string;
}

/** A usable connection for the tool's capability, resolved (and its provider chosen) before the tool runs. */
export interface Connection {
  credentialId: string;
  /** The integration that answers: one of the capability's (google_calendar, outlook_calendar…). */
  integration: IntegrationId;
  /** Its provider. */
  provider: ProviderId;
  /** The integration's name as people know it (Gmail, Outlook Mail…): what a message about this call's vendor names. */
  displayName: string;
  accountEmail: string | null;
  /** The scopes the vendor granted, in its own spelling (Google's full URLs, Graph's names). */
  scopes: readonly string[];
  /** Which row answered: the end user's own connection or the customer-wide one. */
  source: 'user' | 'customer';
  /** The owner's working hours as an admin set them for this connection; null = not set (use the default). */
  workingHours: WorkingHours | null;
  /** Where a person reconnects this integration (for errors that need them to): a fresh signed connect link. */
  setupUrl(): string;
  /**
   * A usable OAuth access token: refreshed (and persisted) first when it expires within the refresh skew.
   * Failures are values: INTEGRATION_EXPIRED (with setup_url) when Google refused the refresh token,
   * EXTERNAL_API_ERROR when Google could not refresh it right now. `signal`: the tool call's deadline.
   */
  accessToken(signal?: AbortSignal, onRequest?: () => void): Promise<Result<string>>;
  /** Refreshes although the token looks valid (Google rejected it), unless a newer one is already stored. */
  refresh(signal?: AbortSignal, onRequest?: () => void): Promise<Result<string>>;
}

export interface ToolContext {
  customerId: string;
  userId: string | null;
  agentId: string;
  requestId: string;
  /**
   * The caller's own `context.request_id` — what a retry of the same call carries again — or null. Tools that
   * can make a write idempotent at Google (a client-chosen event id) derive it from this, never from requestId
   * (which may be generated per HTTP request).
   */
  idempotencyKey: string | null;
  /**
   * Set when this call continues a write under the same request_id that an earlier attempt may have carried out
   * (it died, its record was lost, or it could not tell): a write that cannot be repeated safely looks first.
   */
  readonly earlierAttempt: EarlierAttempt | null;
  /**
   * A write tool calls this when its write may have happened although it answers with a retryable failure: the
   * request_id's record is kept, and the retry gets `earlierAttempt`. No effect without a request_id.
   */
  outcomeUncertain(): void;
  conversationId: string | null;
  logger: Logger;
  /** Set when the tool declares a capability; null for tools that reach no vendor (hub_echo), or do not need one now. */
  connection: Connection | null;
  /** Tools call this once per HTTP request they make upstream (retries included): `metadata.api_calls`. */
  countApiCall(): void;
  /** Aborts when the tool call's deadline (HUB_TOOL_DEADLINE_MS) passes; hand it to every upstream call. */
  readonly deadline: AbortSignal;
  /** The current time (ms since the epoch) — injectable, so what "from now on" means is testable. */
  now(): number;
  /** Limits from configuration that shape tool results, and the Hub-wide services tools share. */
  settings: ToolSettings;
  /** Per-process memo for slow-changing facts (a mailbox's address, a calendar's zone); key by credential id. */
  cache: ToolCache;
  /**
   * The calendar port of the connection's provider (src/core/calendar.ts), for tools of the calendar capability:
   * every request through the connection's token, deadline, retries, breakers and budgets. Reading it without a
   * connection is a bug (the tool declares no integration, or needsConnection said no).
   */
  readonly calendar: CalendarPort;
  /** The mail port of the connection's provider (src/core/mail.ts), for tools of the mail capability; as `calendar`. */
  readonly mail: MailPort;
  /**
   * Untrusted HTML to text in a worker pool, within this call's time budget and deadline; degrades to
   * tag-stripped text (`degraded`) rather than failing. Pass `signal` to give up on a conversion early.
   */
  htmlToText: HtmlToText;
}

/** What a port adapter is built from for one tool call (the connection's VendorCall, the shared facts cache, the deadline). */
export interface PortEnv {
  call: VendorCall;
  cache: ToolCache;
  /** The connection's recent writes, seen by every replica when they share Redis (src/core/recent-writes.ts). */
  recent: RecentWrites;
  connection: Pick<Connection, 'credentialId' | 'accountEmail' | 'scopes'>;
  deadline: AbortSignal;
  /** Read only when an answer does not fit (a tool call's logger is made on first use). */
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** The tools' clock (ms since the epoch): what "recently" means to an adapter that waits for its vendor to settle. */
  now(): number;
  /** Untrusted HTML to text within the call's budget (read on first use). */
  readonly htmlToText: HtmlToText;
  /** Longest text body returned per message. */
  maxBodyChars: number;
}

/** Each provider's port adapters, by the connection's integration (src/providers/index.ts). */
export interface ProviderPorts {
  calendar(integration: IntegrationId, env: PortEnv): CalendarPort;
  mail(integration: IntegrationId, env: PortEnv): MailPort;
}

export interface ToolSettings {
  /** Longest text body (characters) a tool returns per message; longer ones are cut and flagged `truncated`. */
  maxBodyChars: number;
  /** Most sent messages email_send reads back when it verifies whether an uncertain send went out. */
  sendVerifyMaxMessages: number;
  /** Keyed, rotation-stable Google event ids for creates carrying a request_id (calendar/event-id.ts). */
  eventIds: EventIds;
}

export interface ToolDefinition<I = unknown, O = unknown> {
  name: string;
  /**
   * Semver of the tool's input/output contract; bumped when either changes. A new major is a separate
   * definition with the same name (the registry keeps every version; `name@major` picks one).
   */
  version: string;
  /** Absent = active. */
  lifecycle?: ToolLifecycle;
  /** Written for an LLM choosing and calling the tool. */
  description: string;
  /**
   * The capability whose port the tool calls (calendar, mail): any connected provider of it may answer
   * (src/core/provider-choice.ts). Null for a tool that reaches no vendor (hub_echo).
   */
  capability: Capability | null;
  /**
   * Least-privilege permissions the tool needs, in the Hub's own words; each provider spells them in its scopes
   * (src/providers/<vendor>/scope-rules.ts), and broader granted scopes also satisfy them.
   */
  permissions: readonly Permission[];
  /**
   * Derived by defineTool, never written by a tool: the contract's view of the tool, which names Google's
   * integration of the capability and Google's scopes for its permissions (the catalog's `integration` and
   * `required_scopes`). What a call checks is the answering connection's own provider (ConnectionResolver).
   */
  readonly integration: IntegrationId | null;
  readonly requiredScopes: readonly string[];
  sideEffects: SideEffects;
  /**
   * Required for a tool that writes, absent for one that reads: whether a call may change or remove what exists
   * (an update, a delete), or only adds something new (an event created, a mail sent — irreversible, but it
   * overwrites nothing). MCP's destructiveHint and the catalog's `destructive` say this.
   */
  destructive?: boolean;
  /**
   * For a tool that writes: Google itself refuses to apply a repeat of the call with the same request_id
   * (calendar_create_event: an event id derived from it, 409 `duplicate`). The idempotency guard then reads its
   * record instead of taking a lease in the store, and records the answer after it has gone out
   * (src/protection/idempotency.ts).
   */
  deduplicatedUpstream?: boolean;
  /**
   * For a tool that reads but changes something for some inputs (email_read's `mark_as_read` clears Gmail's UNREAD
   * label): whether this call does. A read-only policy (`max_side_effects: reads`) refuses such a call, and MCP's
   * readOnlyHint and the catalog's `read_only` are false for the tool.
   */
  changesWhen?(input: I): boolean;
  /** A strict zod object: unknown input fields are rejected, and the catalog's JSON Schema comes from it. */
  input: z.ZodType<I>;
  output: z.ZodType<O>;
  /**
   * For a tool whose integration is needed only for some inputs (hub_current_time without a `timezone`): false =
   * run without resolving a connection (ctx.connection is null). Absent = always needed when there is an integration.
   */
  needsConnection?(input: I): boolean;
  /**
   * The email addresses this call writes to (bare addresses), for tools that send to people; a policy's
   * `email_allowed_recipient_domains` is checked against them before the tool runs.
   */
  recipients?(input: I): readonly string[];
  /** Expected failures come back as values; a throw is a bug and becomes INTERNAL_ERROR. */
  run(ctx: ToolContext, input: I): Promise<Result<O>>;
}

// The registry holds tools of many input/output types; each tool is type-checked where it is defined.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry of tools whose input and output types differ; each is checked where defined
export type AnyTool = ToolDefinition<any, any>;

/** What a tool's module writes: everything but the contract's derived view. */
export type ToolSpec<I = unknown, O = unknown> = Omit<ToolDefinition<I, O>, 'integration' | 'requiredScopes'>;

export const defineTool = <I, O>(tool: ToolSpec<I, O>): ToolDefinition<I, O> => ({ ...tool, ...contractView(tool.capability, tool.permissions) });
