import { z } from 'zod';
import { type HubError, hubError } from '../core/errors';
import type { SideEffects } from '../tools/types';
import { type ToolMatcher, type ToolRef, toolMatcher } from './tool-match';

/**
 * A policy's rules and what they decide, as pure functions. A customer's policy is the default for its agents;
 * an agent's policy overrides it field by field: a field the agent's policy leaves out is the customer's, and
 * `null` says "no restriction" explicitly (an agent may be freed from a customer-wide list or budget).
 */

// Hostnames as DNS writes them (IDNs in their xn-- form), compared lower-case; at least two labels.
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

export const MAX_LIST_ENTRIES = 200;
/** The default budget of tool calls per conversation — applied once a customer or agent has any policy. */
export const DEFAULT_MAX_TOOL_CALLS = 25;
/** The window of `max_conversations_per_agent_per_hour`. */
export const CONVERSATION_WINDOW_S = 3_600;
/** Bounds what one agent's window remembers (each conversation a 43-character hash). */
export const MAX_CONVERSATIONS_PER_HOUR = 10_000;

// openapi.yaml's PolicyRules is generated from this schema (src/codegen/openapi-routes.ts), descriptions included.
export const policyRulesSchema = z.strictObject({
  enabled_tools: z
    .array(z.string().max(80))
    .max(MAX_LIST_ENTRIES)
    .nullable()
    .optional()
    .describe('Allow-list of tool names (every version) or `name@major`; null = every tool; [] = none.'),
  max_side_effects: z.enum(['reads', 'writes']).optional().describe('`reads` refuses every tool that writes.'),
  max_tool_calls_per_conversation: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .nullable()
    .optional()
    .describe(
      "Calls per (customer, `context.conversation_id`), whichever agents make them, on all replicas together. Each call is held to the calling agent's budget. Calls without a conversation_id are not counted (set `require_conversation_id` to refuse them).",
    ),
  require_conversation_id: z
    .boolean()
    .optional()
    .describe('A tool call without `context.conversation_id` (over MCP, the `X-Hub-Conversation-Id` header) is refused, so every call counts.'),
  max_conversations_per_agent_per_hour: z
    .number()
    .int()
    .min(1)
    .max(MAX_CONVERSATIONS_PER_HOUR)
    .nullable()
    .optional()
    .describe(
      'Distinct `context.conversation_id`s one agent may call with per hour (a fixed window from the first), on all replicas together; a call in a conversation the agent already used this hour always counts as that one. null = no cap.',
    ),
  email_allowed_recipient_domains: z
    .array(
      z
        .string()
        .max(253)
        .transform((d) => d.toLowerCase())
        .pipe(z.string().regex(DOMAIN, 'must be a domain such as "acme.example"')),
    )
    .max(MAX_LIST_ENTRIES)
    .nullable()
    .optional()
    .describe('email_send may write (to, cc, bcc) only to addresses in these domains (exact, case-insensitive; subdomains must be listed). null = any.'),
  require_request_id_for_writes: z
    .boolean()
    .optional()
    .describe('A tool that writes is refused without `context.request_id` (so a retry can never write twice).'),
});
export type PolicyRules = z.output<typeof policyRulesSchema>;

export type PolicyScope = 'customer' | 'agent';
interface From<T> {
  value: T;
  from: PolicyScope;
}

/** The rules in force for one (customer, agent), each with the policy it came from. */
export interface EffectivePolicy {
  tools: From<ToolMatcher> | null;
  readsOnly: From<true> | null;
  budget: From<number> | null;
  domains: From<ReadonlySet<string>> | null;
  requireRequestId: From<true> | null;
  requireConversationId: From<true> | null;
  conversationsPerHour: From<number> | null;
  /** The merged rules, for answers (defaults filled in). */
  rules: Required<PolicyRules>;
}

/** Null when neither policy exists: the call runs as it always has. */
export function effectivePolicy(customer: PolicyRules | null, agent: PolicyRules | null): EffectivePolicy | null {
  if (customer === null && agent === null) return null;
  const pick = <K extends keyof PolicyRules>(field: K): From<PolicyRules[K]> | undefined => {
    if (agent && agent[field] !== undefined) return { value: agent[field], from: 'agent' };
    if (customer && customer[field] !== undefined) return { value: customer[field], from: 'customer' };
    return undefined;
  };
  const owner: PolicyScope = customer !== null ? 'customer' : 'agent';
  const tools = pick('enabled_tools');
  const sideEffects = pick('max_side_effects');
  const budget = pick('max_tool_calls_per_conversation') ?? { value: DEFAULT_MAX_TOOL_CALLS, from: owner };
  const domains = pick('email_allowed_recipient_domains');
  const requestIds = pick('require_request_id_for_writes');
  const conversationIds = pick('require_conversation_id');
  const perHour = pick('max_conversations_per_agent_per_hour');
  return {
    tools: tools?.value == null ? null : { value: toolMatcher(tools.value), from: tools.from },
    readsOnly: sideEffects?.value === 'reads' ? { value: true, from: sideEffects.from } : null,
    budget: budget.value == null ? null : { value: budget.value, from: budget.from },
    domains: domains?.value == null ? null : { value: new Set(domains.value), from: domains.from },
    requireRequestId: requestIds?.value === true ? { value: true, from: requestIds.from } : null,
    requireConversationId: conversationIds?.value === true ? { value: true, from: conversationIds.from } : null,
    conversationsPerHour: perHour?.value == null ? null : { value: perHour.value, from: perHour.from },
    rules: {
      enabled_tools: tools?.value ?? null,
      max_side_effects: sideEffects?.value ?? 'writes',
      max_tool_calls_per_conversation: budget.value ?? null,
      email_allowed_recipient_domains: domains?.value ?? null,
      require_request_id_for_writes: requestIds?.value ?? false,
      require_conversation_id: conversationIds?.value ?? false,
      max_conversations_per_agent_per_hour: perHour?.value ?? null,
    },
  };
}

export interface PolicyCall {
  tool: ToolRef & { sideEffects: SideEffects };
  /** The addresses the call writes to (ToolDefinition.recipients); empty for tools that send nothing. */
  recipients: readonly string[];
  /** Whether the caller gave context.request_id. */
  hasRequestId: boolean;
  /** Whether the caller gave context.conversation_id. */
  hasConversationId: boolean;
  /** Whether this call of a tool that reads changes something all the same (ToolDefinition.changesWhen). */
  changes: boolean;
}

export type PolicyRule =
  | 'enabled_tools'
  | 'max_side_effects'
  | 'require_request_id_for_writes'
  | 'require_conversation_id'
  | 'email_allowed_recipient_domains'
  | 'max_tool_calls_per_conversation'
  | 'max_conversations_per_agent_per_hour';

export const policyDenied = (rule: PolicyRule, policy: PolicyScope, message: string, extra: Record<string, unknown> = {}): HubError =>
  hubError('POLICY_DENIED', message, { details: { rule, policy, ...extra } });

/** Whether the tool could ever run under this policy (the catalog and status "for this agent" show only those). */
export function mayRun(p: EffectivePolicy | null, tool: ToolRef & { sideEffects: SideEffects }): boolean {
  if (p === null) return true;
  if (p.tools !== null && !p.tools.value(tool)) return false;
  return !(p.readsOnly !== null && tool.sideEffects === 'writes');
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** Null when the call passes every rule but the counted ones (budget, conversations per hour: last); else POLICY_DENIED. */
export function policyRefusal(p: EffectivePolicy, call: PolicyCall): HubError | null {
  const { tool } = call;
  if (p.tools !== null && !p.tools.value(tool)) {
    return policyDenied('enabled_tools', p.tools.from, `The ${p.tools.from} policy does not enable ${tool.name} (version ${tool.version})`);
  }
  if (p.readsOnly !== null && tool.sideEffects === 'writes') {
    return policyDenied('max_side_effects', p.readsOnly.from, `The ${p.readsOnly.from} policy allows only tools that read; ${tool.name} writes`);
  }
  if (p.readsOnly !== null && call.changes) {
    return policyDenied(
      'max_side_effects',
      p.readsOnly.from,
      `The ${p.readsOnly.from} policy allows only calls that read; this ${tool.name} call changes what it reads`,
    );
  }
  if (p.requireRequestId !== null && tool.sideEffects === 'writes' && !call.hasRequestId) {
    return policyDenied(
      'require_request_id_for_writes',
      p.requireRequestId.from,
      `The ${p.requireRequestId.from} policy requires context.request_id for tools that write, so a retry cannot write twice`,
    );
  }
  if (p.requireConversationId !== null && !call.hasConversationId) {
    return policyDenied(
      'require_conversation_id',
      p.requireConversationId.from,
      `The ${p.requireConversationId.from} policy requires context.conversation_id on every tool call (over MCP, the X-Hub-Conversation-Id header)`,
    );
  }
  if (p.domains !== null && call.recipients.length > 0) {
    const refused = [...new Set(call.recipients.map(domainOf).filter((d) => !p.domains!.value.has(d)))];
    if (refused.length > 0) {
      return policyDenied(
        'email_allowed_recipient_domains',
        p.domains.from,
        `The ${p.domains.from} policy does not allow writing to ${refused.slice(0, 5).join(', ')}`,
        {
          refused_domains: refused.slice(0, 20),
        },
      );
    }
  }
  return null;
}
