import { DEFAULT_MAX_TOOL_CALLS, effectivePolicy, mayRun, policyRefusal, policyRulesSchema } from '../../src/access/policy-rules';
import { toolMatcher } from '../../src/access/tool-match';

const tool = (name: string, version = '1.0.0', sideEffects: 'reads' | 'writes' = 'reads') => ({ name, version, sideEffects });
const call = (t: ReturnType<typeof tool>, recipients: string[] = [], hasRequestId = false, changes = false, hasConversationId = true) => ({
  tool: t,
  recipients,
  hasRequestId,
  changes,
  hasConversationId,
});

describe('tool allow-lists', () => {
  it('when an entry names a major version, then only that major matches; a bare name matches every version', () => {
    const matches = toolMatcher(['email_send@2', 'hub_echo']);
    expect(matches({ name: 'email_send', version: '2.4.1' })).toBe(true);
    expect(matches({ name: 'email_send', version: '1.9.0' })).toBe(false);
    expect(matches({ name: 'hub_echo', version: '7.0.0' })).toBe(true);
    expect(matches({ name: 'email_search', version: '1.0.0' })).toBe(false);
  });
});

describe('merging a customer policy and an agent policy', () => {
  it('when neither exists, then there is no policy at all (no default budget either)', () => {
    expect(effectivePolicy(null, null)).toBeNull();
  });

  it("when the agent leaves a field out, then the customer's applies; null lifts it; a value overrides it", () => {
    const customer = policyRulesSchema.parse({
      enabled_tools: ['hub_echo'],
      max_tool_calls_per_conversation: 5,
      email_allowed_recipient_domains: ['acme.example'],
    });
    const agent = policyRulesSchema.parse({ enabled_tools: null, max_tool_calls_per_conversation: 9 });
    const merged = effectivePolicy(customer, agent)!;
    expect(merged.rules).toEqual({
      enabled_tools: null,
      max_side_effects: 'writes',
      max_tool_calls_per_conversation: 9,
      email_allowed_recipient_domains: ['acme.example'],
      require_request_id_for_writes: false,
      require_conversation_id: false,
      max_conversations_per_agent_per_hour: null,
    });
    expect(merged.budget).toEqual({ value: 9, from: 'agent' });
    expect(merged.domains?.from).toBe('customer');
  });

  it('when a policy exists but sets no budget, then the default budget applies, from that policy', () => {
    expect(effectivePolicy(null, {})!.budget).toEqual({ value: DEFAULT_MAX_TOOL_CALLS, from: 'agent' });
    expect(effectivePolicy({}, {})!.budget).toEqual({ value: DEFAULT_MAX_TOOL_CALLS, from: 'customer' });
    expect(effectivePolicy({ max_tool_calls_per_conversation: null }, null)!.budget).toBeNull();
  });
});

describe('refusals', () => {
  it('when several rules would refuse, then the tool list is reported first, then side effects, request id, recipients', () => {
    const p = effectivePolicy(
      { enabled_tools: ['hub_echo'], max_side_effects: 'reads', require_request_id_for_writes: true, email_allowed_recipient_domains: ['acme.example'] },
      null,
    )!;
    expect(policyRefusal(p, call(tool('email_send', '1.0.0', 'writes'), ['x@evil.example']))!.details!.rule).toBe('enabled_tools');
    const q = effectivePolicy({ max_side_effects: 'reads', require_request_id_for_writes: true }, null)!;
    expect(policyRefusal(q, call(tool('email_send', '1.0.0', 'writes')))!.details!.rule).toBe('max_side_effects');
    const r = effectivePolicy({ require_request_id_for_writes: true, email_allowed_recipient_domains: ['acme.example'] }, null)!;
    expect(policyRefusal(r, call(tool('email_send', '1.0.0', 'writes'), ['x@evil.example']))!.details!.rule).toBe('require_request_id_for_writes');
    expect(policyRefusal(r, call(tool('email_send', '1.0.0', 'writes'), ['x@evil.example', 'y@Evil.example', 'z@acme.example'], true))!.details).toEqual({
      rule: 'email_allowed_recipient_domains',
      policy: 'customer',
      refused_domains: ['evil.example'],
    });
    expect(policyRefusal(r, call(tool('email_send', '1.0.0', 'writes'), ['z@ACME.example'], true))).toBeNull();
  });

  it('when a read-only policy meets a call of a reading tool that changes what it reads (email_read with mark_as_read), then it is refused; the same tool without the change runs', () => {
    const p = effectivePolicy({ max_side_effects: 'reads' }, null)!;
    const refused = policyRefusal(p, call(tool('email_read', '1.1.0', 'reads'), [], false, true));
    expect(refused).toMatchObject({ code: 'POLICY_DENIED', details: { rule: 'max_side_effects', policy: 'customer' } });
    expect(refused!.message).toContain('changes what it reads');
    expect(policyRefusal(p, call(tool('email_read', '1.1.0', 'reads')))).toBeNull();
    expect(mayRun(p, tool('email_read', '1.1.0', 'reads'))).toBe(true);
  });

  it('when a domain is written in capitals, then it is stored lower-case; a bare word is not a domain', () => {
    expect(policyRulesSchema.parse({ email_allowed_recipient_domains: ['ACME.Example'] }).email_allowed_recipient_domains).toEqual(['acme.example']);
    expect(policyRulesSchema.safeParse({ email_allowed_recipient_domains: ['localhost'] }).success).toBe(false);
  });

  it('when a tool writes under a read-only policy, then it is not runnable (the catalog leaves it out)', () => {
    const p = effectivePolicy({ max_side_effects: 'reads' }, null);
    expect(mayRun(p, tool('hub_echo'))).toBe(true);
    expect(mayRun(p, tool('email_send', '1.0.0', 'writes'))).toBe(false);
    expect(mayRun(null, tool('email_send', '1.0.0', 'writes'))).toBe(true);
  });
});
