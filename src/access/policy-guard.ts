import type { HubError } from '../core/errors';
import { storeUnavailable } from '../integrations/connections';
import { isDatabaseUnavailable } from '../store/db';
import type { Logger } from '../logger';
import type { AnyTool } from '../tools/types';
import type { ConversationBudget, Taken } from './conversation-budget';
import type { Policies } from './policy-cache';
import { CONVERSATION_WINDOW_S, type EffectivePolicy, policyDenied, policyRefusal } from './policy-rules';

export interface PolicyCheck {
  customerId: string;
  agentId: string;
  tool: AnyTool;
  /** The tool's validated inputs. */
  input: unknown;
  hasRequestId: boolean;
  conversationId: string | null;
}

type Verdict = HubError | null;
const NO_RECIPIENTS: readonly string[] = [];
/**
 * POLICY_DENIED (or SERVICE_UNAVAILABLE when the policies cannot be read) for a call, or null when it may run.
 * Synchronous when this replica's copy of the policies answers and no budget is counted in Redis: the hot path
 * (a customer without policies) then costs one map lookup and no extra turn of the event loop.
 */
export type PolicyGuard = (call: PolicyCheck) => Verdict | Promise<Verdict>;

/**
 * The policy gate of a tool call, run after its inputs are validated and before any credential lookup or Google
 * call: the rules that need nothing but the call first, the counted ones (a Redis round trip) last, so a call
 * refused by a rule spends neither the conversation's budget nor the agent's conversations. A call without
 * conversation_id has nothing to be counted against: a policy that wants every call counted requires one
 * (`require_conversation_id`), and such a call is refused by the rules above.
 */
export function createPolicyGuard(deps: { policies: Policies; budget: ConversationBudget; logger: Logger }): PolicyGuard {
  // Policies live in the credential store's database. When it cannot be read and this replica holds no copy, a
  // call that touches a customer's account (a tool with an integration) gets the credential store's own 503 —
  // never "no policy". A tool without an integration (hub_echo) still runs, as it always has without a database:
  // there is nothing of the customer's a policy could protect from it.
  const unavailable = (err: unknown, tool: AnyTool): HubError | null => {
    if (tool.integration === null && isDatabaseUnavailable(err)) return null;
    return storeUnavailable(err, deps.logger); // rethrows what is not an outage (a bug)
  };

  const countedVerdict = (taken: Taken, policy: EffectivePolicy): Verdict => {
    if (taken.ok) return null;
    if (taken.rule === 'max_tool_calls_per_conversation') {
      const budget = policy.budget!;
      return policyDenied(
        'max_tool_calls_per_conversation',
        budget.from,
        `This conversation has used its ${budget.value} tool calls (the ${budget.from} policy's budget, whichever agents made them)`,
        { limit: budget.value },
      );
    }
    const cap = policy.conversationsPerHour!;
    const retryAfterS = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
    return policyDenied(
      'max_conversations_per_agent_per_hour',
      cap.from,
      `This agent has used ${cap.value} conversations this hour (the ${cap.from} policy's cap); continue one of them, or start a new one in ${retryAfterS} s`,
      { limit: cap.value, window_s: CONVERSATION_WINDOW_S, retry_after_s: retryAfterS },
    );
  };

  const decide = (policy: EffectivePolicy | null, call: PolicyCheck): Verdict | Promise<Verdict> => {
    if (policy === null) return null;
    const { tool } = call;
    const refused = policyRefusal(policy, {
      tool,
      recipients: tool.recipients?.(call.input) ?? NO_RECIPIENTS,
      hasRequestId: call.hasRequestId,
      hasConversationId: call.conversationId !== null,
      changes: tool.changesWhen?.(call.input) ?? false,
    });
    if (refused !== null || call.conversationId === null) return refused;
    const limits = { perConversation: policy.budget?.value ?? null, perAgentWindow: policy.conversationsPerHour?.value ?? null };
    const taken = deps.budget.take(call.customerId, call.agentId, call.conversationId, limits);
    return taken instanceof Promise ? taken.then((t) => countedVerdict(t, policy)) : countedVerdict(taken, policy);
  };

  return (call) => {
    let policy;
    try {
      policy = deps.policies.effective(call.customerId, call.agentId);
    } catch (err) {
      return unavailable(err, call.tool);
    }
    if (!(policy instanceof Promise)) return decide(policy, call);
    return policy.then(
      (p) => decide(p, call),
      (err: unknown) => unavailable(err, call.tool),
    );
  };
}
