import { createLocalConversationCounts } from '../../src/access/conversation-counts';

/** The in-process count of the conversation rules over time (a clock the test moves): windows and TTLs end. */

const HOUR = 3_600_000;
const setup = () => {
  let t = 1_000_000;
  const counts = createLocalConversationCounts({ ttlMs: 10 * HOUR, windowMs: HOUR, now: () => t });
  return { counts, advance: (ms: number) => (t += ms) };
};

describe('the per-hour conversation cap', () => {
  it('when the hour that began with the first conversation ends, then the agent may open new ones, and retry_after says when', () => {
    const { counts, advance } = setup();
    const cap = { perConversation: null, perAgentWindow: 2 };
    expect(counts.take('c', 'a', 'one', cap)).toEqual({ ok: true });
    advance(HOUR / 2);
    expect(counts.take('c', 'a', 'two', cap)).toEqual({ ok: true });
    expect(counts.take('c', 'a', 'three', cap)).toEqual({ ok: false, rule: 'max_conversations_per_agent_per_hour', used: 2, retryAfterMs: HOUR / 2 });
    expect(counts.take('c', 'a', 'one', cap)).toEqual({ ok: true }); // one it already has
    expect(counts.take('c', 'b', 'three', cap)).toEqual({ ok: true }); // another agent
    expect(counts.take('d', 'a', 'three', cap)).toEqual({ ok: true }); // the same agent id of another customer
    advance(HOUR / 2);
    expect(counts.take('c', 'a', 'three', cap)).toEqual({ ok: true });
  });
});

describe("a conversation's budget", () => {
  it('when the conversation has been quiet for the TTL, then its count is forgotten; a call extends it', () => {
    const { counts, advance } = setup();
    const budget = { perConversation: 2, perAgentWindow: null };
    expect(counts.take('c', 'a', 'x', budget)).toEqual({ ok: true });
    advance(9 * HOUR);
    expect(counts.take('c', 'b', 'x', budget)).toEqual({ ok: true });
    advance(9 * HOUR); // 18 h after the first call, 9 h after the last
    expect(counts.take('c', 'a', 'x', budget)).toEqual({ ok: false, rule: 'max_tool_calls_per_conversation', used: 2 });
    advance(HOUR + 1);
    expect(counts.take('c', 'a', 'x', budget)).toEqual({ ok: true });
  });

  it('when each agent has its own budget, then the shared count is held to the calling agent’s', () => {
    const { counts } = setup();
    for (let i = 0; i < 3; i++) expect(counts.take('c', 'a', 'x', { perConversation: 5, perAgentWindow: null }).ok).toBe(true);
    expect(counts.take('c', 'b', 'x', { perConversation: 3, perAgentWindow: null })).toMatchObject({ ok: false, used: 3 });
    expect(counts.take('c', 'a', 'x', { perConversation: 5, perAgentWindow: null }).ok).toBe(true);
  });
});
