import type { HubError } from '../errors';
import { storeUnavailable } from '../integrations/connections';
import { isDatabaseUnavailable } from '../store/db';
import type { Logger } from '../logger';
import type { AnyTool } from '../tools/types';
import type { ConversationBudget } from './conversation-budget';
import type { Policies } from './policy-cache';
import { type EffectivePolicy, policyDenied, policyRefusal } from './policy-rules';

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
 * call: the rules that need nothing but the call first, the call budget (a Redis round trip) last, so a call
 * refused by a rule does not spend the conversation's budget. A call without conversation_id is not counted: there
 * is nothing to count it against (an agent that wants the budget enforced sends one).
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

  const budgetVerdict = (taken: { ok: true } | { ok: false; used: number }, budget: NonNullable<EffectivePolicy['budget']>): Verdict =>
    taken.ok
      ? null
      : policyDenied(
          'max_tool_calls_per_conversation',
          budget.from,
          `This conversation has used its ${budget.value} tool calls (the ${budget.from} policy's budget)`,
          {
            limit: budget.value,
          },
        );

  const decide = (policy: EffectivePolicy | null, call: PolicyCheck): Verdict | Promise<Verdict> => {
    if (policy === null) return null;
    const { tool } = call;
    const refused = policyRefusal(policy, {
      tool,
      recipients: tool.recipients?.(call.input) ?? NO_RECIPIENTS,
      hasRequestId: call.hasRequestId,
      changes: tool.changesWhen?.(call.input) ?? false,
    });
    if (refused !== null || policy.budget === null || call.conversationId === null) return refused;
    const budget = policy.budget;
    const taken = deps.budget.take(call.customerId, call.agentId, call.conversationId, budget.value);
    return taken instanceof Promise ? taken.then((t) => budgetVerdict(t, budget)) : budgetVerdict(taken, budget);
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
