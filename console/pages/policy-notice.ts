/**
 * What saving a policy puts in force for conversations, said before the admin saves: creating any policy brings
 * a budget of tool calls per conversation with it, even when that field is left "not set".
 */

/** The Hub's default budget once any policy exists (the admin API's `effective` shows the same; the browser suite checks they agree). */
export const DEFAULT_BUDGET = 25;

/** What an agent's policy inherits for a field it leaves out: the customer's policy in force, or the defaults. */
export interface Inherited {
  budget: number | null;
  requireConversationId: boolean;
  /** 'customer': the customer's policy; 'default': the customer has none. */
  from: 'customer' | 'default';
}

export interface NoticeInput {
  creating: boolean;
  /** null for the customer's own policy. */
  inherited: Inherited | null;
  /** The form's values as the API reads them: undefined = not set. */
  budget: unknown;
  requireConversationId: unknown;
  conversationsPerHour: unknown;
}

const calls = (n: number | null) => (n === null ? 'no limit on tool calls per conversation' : `at most ${n} tool calls per conversation`);

export function conversationNotice(o: NoticeInput): string {
  let budget: number | null;
  let whence: string;
  if (typeof o.budget === 'number') [budget, whence] = [o.budget, 'set here'];
  else if (o.budget === null) [budget, whence] = [null, 'set here'];
  else if (o.inherited?.from === 'customer') [budget, whence] = [o.inherited.budget, "the customer's policy, as this field is not set"];
  else [budget, whence] = [DEFAULT_BUDGET, 'the default, as “Tool calls per conversation” is not set'];
  const required = typeof o.requireConversationId === 'boolean' ? o.requireConversationId : (o.inherited?.requireConversationId ?? false);

  const lead = o.creating ? `Saving creates this policy, and with it ${calls(budget)}` : `Once saved: ${calls(budget)}`;
  const shared = budget === null ? '' : ', counted over every agent in the conversation';
  const missing = required ? 'A call without a conversation id is refused.' : 'Calls without a conversation id are not counted.';
  const perHour = typeof o.conversationsPerHour === 'number' ? ` Each agent may use at most ${o.conversationsPerHour} conversations an hour.` : '';
  return `${lead} (${whence})${shared}. ${missing}${perHour}`;
}
