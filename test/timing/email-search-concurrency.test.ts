import { sandboxHubEnv } from '../helpers/connected';
import { ANA, expectTool, twoConnectedMailboxes } from '../helpers/email';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/** A search fetches its messages from Gmail concurrently: its time is about one get's, not the sum of them. */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

it('when a search matches more than max_results and each Gmail get takes 150 ms, then the five gets run at once: under 600 ms, not 750', async () => {
  const many = Array.from({ length: 12 }, (_, i) => ({
    from: 'john@example.com',
    to: [ANA.email],
    subject: `Update ${i}`,
    text: `n${i}`,
    date: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
  }));
  const { ana } = await twoConnectedMailboxes(hub, sb, { ana: many });
  await sb.control('POST', '/faults', { operation: 'gmail.users.messages.get', latency_ms: 150 });
  const started = Date.now();
  const res = await expectTool(hub, ana, 'email_search', { query: 'subject:update', max_results: 5 });
  expect(Date.now() - started).toBeLessThan(600); // five gets one after another would take 750 ms
  expect(res.body.result.messages).toHaveLength(5);
});
