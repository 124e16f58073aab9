import { randomUUID } from 'node:crypto';
import { sandboxHubEnv } from '../helpers/connected';
import { ANA, expectTool, mailboxAt, twoConnectedMailboxes } from '../helpers/email';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * HTML conversion runs within a time budget (test/component/hostile-html.test.ts has what it makes of hostile
 * mail): a conversion that outruns HUB_HTML_TIMEOUT_MS degrades to the stripped text, and a search whose bodies
 * outrun HUB_HTML_BUDGET_MS answers within it. Timing is the point, so it runs alone, in the timing tier.
 */

const sb = useTestSandbox();
const JOHN = 'john@example.com';
const htmlMail = (subject: string, html: string) => ({ from: JOHN, to: [ANA.email], subject, html, date: '2024-01-10T09:30:00Z' });
const ORDINARY = '<table><tr><td><p>Hello <b>Ana</b>, see <a href="https://example.com/q1">the plan</a>.</p></td></tr></table>';
const idOf = (subject: string) => mailboxAt(sb, ANA.email).find((m) => m.raw.includes(`\r\nSubject: ${subject}\r\n`))?.id;

describe('the time budget', () => {
  let slow: TestHub;
  beforeAll(async () => {
    // 50 ms cannot convert 500 KB of ordinary HTML (~250 ms): every such conversion runs out of time. The call's
    // budget leaves room for a fresh worker to start after one was stopped.
    slow = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_HTML_TIMEOUT_MS: '50', HUB_HTML_BUDGET_MS: '2500' }) });
  });
  afterAll(() => slow.close());

  it('when a conversion outruns its time, then its worker is stopped and the body is the stripped text, still 200', async () => {
    const big = ORDINARY.repeat(5_000);
    const { ana } = await twoConnectedMailboxes(slow, sb, { ana: [htmlMail('big', big), htmlMail('small', ORDINARY)] });
    const t0 = Date.now();
    const res = await expectTool(slow, ana, 'email_read', { message_id: idOf('big') });
    expect(res.body.result.body_degraded).toBe(true);
    expect(res.body.result.body.startsWith('Hello Ana, see the plan.')).toBe(true);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(slow.logs.entries()).toContainEqual(expect.objectContaining({ msg: 'HTML body degraded to stripped text', reason: 'timeout' }));
    // The pool recovers: a small mail converts normally afterwards.
    const after = await expectTool(slow, ana, 'email_read', { message_id: idOf('small') });
    expect(after.body.result).toMatchObject({ body: 'Hello Ana, see the plan [https://example.com/q1].' });
    expect(after.body.result.body_degraded).toBeUndefined();
  });

  it("when a search's bodies together outrun the call's budget, then the rest degrade and the search still answers within it", async () => {
    const big = ORDINARY.repeat(5_000);
    const { ana } = await twoConnectedMailboxes(slow, sb, { ana: Array.from({ length: 12 }, (_, i) => htmlMail(`big ${i}`, big)) });
    const t0 = Date.now();
    const res = await client(slow.app)
      .post('/api/internal/tools/execute/')
      .set('Authorization', serviceAuth())
      .send({ tool: 'email_search', agent_id: randomUUID(), customer_id: ana.customerId, inputs: { query: '', include_body: true, max_results: 12 } });
    expect(res.status).toBe(200);
    expect(res.body.result.messages).toHaveLength(12);
    expect(res.body.result.messages.every((m: { body_degraded?: boolean }) => m.body_degraded)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(6_000);
  });
});
