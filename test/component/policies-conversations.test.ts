import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { openRedis } from '../../src/store/redis';
import { asAdmin } from '../helpers/admin';
import { services } from '../helpers/env';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';

/**
 * The conversation rules of a policy, over HTTP: a conversation's call budget counted per (customer,
 * conversation_id) whichever agents call, `require_conversation_id` so that no call escapes the count, and
 * `max_conversations_per_agent_per_hour` so that rotating conversation ids does not multiply the budget — in
 * this process (embedded store, no Redis) and, with REDIS_URL, on two Hubs sharing one Redis.
 */

const { redisUrl } = services();

const execute = (hub: TestHub, customerId: string, options: { agentId?: string; conversationId?: string | null } = {}) =>
  client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({
      tool: 'hub_echo',
      agent_id: options.agentId ?? randomUUID(),
      customer_id: customerId,
      inputs: { message: 'hi' },
      context: { conversation_id: options.conversationId ?? null },
    });
const putPolicy = (hub: TestHub, customerId: string, rules: unknown, agentId?: string) =>
  client(hub.app)
    .put(`/api/admin/customers/${customerId}${agentId ? `/agents/${agentId}` : ''}/policy`)
    .set('Authorization', asAdmin())
    .send(rules as object);

describe.each([
  ['in this process (embedded store, no Redis)', false],
  ['on two Hubs sharing Redis', true],
] as const)('%s', (_where, shared) => {
  const run = shared && !redisUrl ? describe.skip : describe;
  run('conversation rules', () => {
    let hubs: TestHub[];
    let redis: Redis[] = [];
    // Calls alternate between the Hubs (one Hub in memory); each Hub has its own database, so each gets the policy.
    const at = (i: number) => hubs[i % hubs.length]!;
    const withPolicy = async (customerId: string, rules: unknown, agentId?: string) => {
      for (const hub of hubs) await putPolicy(hub, customerId, rules, agentId).expect(201);
    };
    beforeAll(async () => {
      if (shared) {
        redis = [await openRedis(redisUrl!, captureLogs().logger), await openRedis(redisUrl!, captureLogs().logger)];
        hubs = [await buildTestHub({ redis: redis[0] }), await buildTestHub({ redis: redis[1] })];
      } else hubs = [await buildTestHub()];
    });
    afterAll(async () => {
      await Promise.all(hubs.map((h) => h.close()));
      await Promise.all(redis.map((r) => r.quit()));
    });

    test('when several agents call in one conversation, then they share its budget', async () => {
      const customerId = randomUUID();
      await withPolicy(customerId, { max_tool_calls_per_conversation: 4 });
      const agents = [randomUUID(), randomUUID(), randomUUID()];
      for (let i = 0; i < 4; i++) await execute(at(i), customerId, { agentId: agents[i % 3], conversationId: 'conv-1' }).expect(200);
      const refused = await execute(at(4), customerId, { agentId: agents[2], conversationId: 'conv-1' }).expect(403);
      expect(refused.body.error).toMatchObject({
        code: 'POLICY_DENIED',
        retryable: false,
        details: { rule: 'max_tool_calls_per_conversation', policy: 'customer', limit: 4 },
      });
      expect(refused.body.error.message).toMatch(/whichever agents/);
      // Another customer's conversation of the same name is its own.
      const other = randomUUID();
      await withPolicy(other, { max_tool_calls_per_conversation: 4 });
      await execute(at(5), other, { agentId: agents[0], conversationId: 'conv-1' }).expect(200);
    });

    test('when a policy requires conversation_id, then a call without one is refused with a clear error, and one with it runs', async () => {
      const customerId = randomUUID();
      await withPolicy(customerId, { require_conversation_id: true });
      const refused = await execute(at(0), customerId).expect(403);
      expect(refused.body).toMatchObject({
        success: false,
        tool: 'hub_echo',
        error: { code: 'POLICY_DENIED', retryable: false, details: { rule: 'require_conversation_id', policy: 'customer' } },
      });
      expect(refused.body.error.message).toMatch(/context\.conversation_id.*X-Hub-Conversation-Id/);
      await execute(at(1), customerId, { conversationId: 'conv-1' }).expect(200);
    });

    test('when an agent opens more conversations in an hour than its cap, then a new one is refused and the ones it has go on', async () => {
      const customerId = randomUUID();
      const agentId = randomUUID();
      await withPolicy(customerId, { max_conversations_per_agent_per_hour: 3 });
      for (let i = 0; i < 3; i++) await execute(at(i), customerId, { agentId, conversationId: `conv-${i}` }).expect(200);
      const refused = await execute(at(3), customerId, { agentId, conversationId: 'conv-3' }).expect(403);
      expect(refused.body.error.details).toMatchObject({ rule: 'max_conversations_per_agent_per_hour', policy: 'customer', limit: 3, window_s: 3600 });
      expect(refused.body.error.details.retry_after_s).toBeGreaterThan(3500);
      expect(refused.body.error.details.retry_after_s).toBeLessThanOrEqual(3600);
      await execute(at(4), customerId, { agentId, conversationId: 'conv-0' }).expect(200);
      // The cap is per agent: another agent may open conv-3 (and join conv-0).
      const sibling = randomUUID();
      await execute(at(5), customerId, { agentId: sibling, conversationId: 'conv-3' }).expect(200);
      await execute(at(6), customerId, { agentId: sibling, conversationId: 'conv-0' }).expect(200);
    });

    test('when an agent rotates conversation ids or sends none, then a policy requiring ids with a cap bounds its calls', async () => {
      const customerId = randomUUID();
      const agentId = randomUUID();
      await withPolicy(customerId, { require_conversation_id: true, max_conversations_per_agent_per_hour: 5, max_tool_calls_per_conversation: 2 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await execute(at(i), customerId, { agentId, conversationId: `rotated-${i}` })).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      for (let i = 0; i < 30; i++) statuses.push((await execute(at(i), customerId, { agentId })).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      // At most 5 conversations × 2 calls in the hour.
      for (let i = 0; i < 5; i++) await execute(at(i), customerId, { agentId, conversationId: `rotated-${i}` }).expect(200);
      for (let i = 0; i < 5; i++) await execute(at(i), customerId, { agentId, conversationId: `rotated-${i}` }).expect(403);
    });

    test('when a call is refused by one counted rule, then it is counted by neither', async () => {
      const customerId = randomUUID();
      const agentId = randomUUID();
      await withPolicy(customerId, { max_conversations_per_agent_per_hour: 1, max_tool_calls_per_conversation: 2 });
      await execute(at(0), customerId, { agentId, conversationId: 'a' }).expect(200);
      // Refused by the cap: conversation b is not charged a call, so another agent still has both of b's calls.
      await execute(at(1), customerId, { agentId, conversationId: 'b' }).expect(403);
      const sibling = randomUUID();
      await execute(at(2), customerId, { agentId: sibling, conversationId: 'b' }).expect(200);
      await execute(at(3), customerId, { agentId: sibling, conversationId: 'b' }).expect(200);
      // Refused by b's budget: the third agent has not opened b, so it may still open another conversation.
      const third = randomUUID();
      await execute(at(4), customerId, { agentId: third, conversationId: 'b' }).expect(403);
      await execute(at(5), customerId, { agentId: third, conversationId: 'c' }).expect(200);
    });

    test("when an agent's policy sets its own cap or lifts the requirement, then it overrides the customer's", async () => {
      const customerId = randomUUID();
      const [free, plain] = [randomUUID(), randomUUID()];
      await withPolicy(customerId, { require_conversation_id: true, max_conversations_per_agent_per_hour: 1 });
      await withPolicy(customerId, { require_conversation_id: false, max_conversations_per_agent_per_hour: null }, free);
      await execute(at(0), customerId, { agentId: plain }).expect(403);
      await execute(at(1), customerId, { agentId: free }).expect(200);
      for (let i = 0; i < 3; i++) await execute(at(i), customerId, { agentId: free, conversationId: `f-${i}` }).expect(200);
      await execute(at(0), customerId, { agentId: plain, conversationId: 'p-0' }).expect(200);
      expect((await execute(at(1), customerId, { agentId: plain, conversationId: 'p-1' }).expect(403)).body.error.details.policy).toBe('customer');
    });
  });
});

describe('the admin API validates the conversation rules', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  test.each([
    [{ require_conversation_id: 'yes' }, 'require_conversation_id'],
    [{ max_conversations_per_agent_per_hour: 0 }, 'max_conversations_per_agent_per_hour'],
    [{ max_conversations_per_agent_per_hour: 10_001 }, 'max_conversations_per_agent_per_hour'],
    [{ max_conversations_per_agent_per_hour: 2.5 }, 'max_conversations_per_agent_per_hour'],
    [{ max_conversations_per_hour: 5 }, 'max_conversations_per_hour'],
  ])('when the body is %j, then VALIDATION_ERROR names %s and nothing is stored', async (rules, path) => {
    const customerId = randomUUID();
    const res = await putPolicy(hub, customerId, rules).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).join(' ')).toContain(path);
    await client(hub.app).get(`/api/admin/customers/${customerId}/policy`).set('Authorization', asAdmin()).expect(404);
  });

  test('when the rules are valid, then they are stored and in force, defaults filled in', async () => {
    const customerId = randomUUID();
    const created = await putPolicy(hub, customerId, { require_conversation_id: true, max_conversations_per_agent_per_hour: 40 }).expect(201);
    expect(created.body.rules).toEqual({ require_conversation_id: true, max_conversations_per_agent_per_hour: 40 });
    expect(created.body.effective).toMatchObject({
      max_tool_calls_per_conversation: 25,
      require_conversation_id: true,
      max_conversations_per_agent_per_hour: 40,
    });
  });
});
