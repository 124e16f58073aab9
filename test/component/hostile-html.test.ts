import { sandboxHubEnv } from '../helpers/connected';
import { ANA, expectTool, mailboxAt, rawAtSandbox, twoConnectedMailboxes } from '../helpers/email';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * HTML mail is untrusted. An HTML-only mail of `<div>x` repeated 5,000 times (30 KB) used to answer 500 (the
 * converter overflowed its stack), and one of ~1 MB blocked the event loop for seconds. Conversion now runs in a
 * worker pool, within a time budget and a nesting limit, and degrades to the tag-stripped text
 * (`body_degraded: true`) instead of failing. The time budget (a conversion or a search that outruns it) and the
 * latency side, measured against a separate Hub process, are in the timing tier: test/timing/html-time-budget.test.ts
 * and hostile-html-latency.test.ts.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_TOOL_DEADLINE_MS: '15000' }) });
});
afterAll(() => hub.close());

const JOHN = 'john@example.com';
const htmlMail = (subject: string, html: string) => ({ from: JOHN, to: [ANA.email], subject, html, date: '2024-01-10T09:30:00Z' });
const DEEP_30KB = '<div>x'.repeat(5_000);
const DEEP_1MB = '<div>x'.repeat(175_000);
const ORDINARY = '<table><tr><td><p>Hello <b>Ana</b>, see <a href="https://example.com/q1">the plan</a>.</p></td></tr></table>';

const idOf = (subject: string) => mailboxAt(sb, ANA.email).find((m) => m.raw.includes(`\r\nSubject: ${subject}\r\n`))?.id;

describe('hostile HTML mail', () => {
  it('when email_read meets 5,000 or 175,000 nested <div>, then 200 with every line of text, flagged body_degraded', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [htmlMail('deep 30 KB', DEEP_30KB), htmlMail('deep 1 MB', DEEP_1MB)] });
    const small = await expectTool(hub, ana, 'email_read', { message_id: idOf('deep 30 KB') });
    expect(small.body.result).toMatchObject({ body: Array(5_000).fill('x').join('\n'), body_degraded: true });
    expect(small.body.result.truncated).toBeUndefined();
    const large = await expectTool(hub, ana, 'email_read', { message_id: idOf('deep 1 MB') });
    expect(large.body.result).toMatchObject({ body_degraded: true, truncated: true });
    expect(large.body.result.body).toMatch(/^x\nx\nx\n/);
    expect(large.body.result.body.length).toBeLessThanOrEqual(100_000);
  });

  it('when a search with bodies holds hostile and ordinary HTML mail, then 200 with each body converted or degraded on its own', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [htmlMail('deep', DEEP_30KB), htmlMail('ordinary', ORDINARY), htmlMail('huge', DEEP_1MB)] });
    const res = await expectTool(hub, ana, 'email_search', { query: '', include_body: true, max_results: 10 });
    const bySubject = Object.fromEntries(res.body.result.messages.map((m: { subject: string }) => [m.subject, m]));
    expect(bySubject.ordinary).toMatchObject({ body: 'Hello Ana, see the plan [https://example.com/q1].' });
    expect(bySubject.ordinary.body_degraded).toBeUndefined();
    expect(bySubject.deep).toMatchObject({ body_degraded: true });
    expect(bySubject.huge).toMatchObject({ body_degraded: true, truncated: true });
  });

  it('when email_send gets HTML of 3,000 unclosed <div>, then the mail is sent with a text alternative (no 500)', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const body = `<p>Hi</p>${'<div>line'.repeat(3_000)}`;
    const res = await expectTool(hub, ana, 'email_send', { to: ['x@example.com'], subject: 'Deep', body, body_type: 'html' });
    const raw = await rawAtSandbox(sb, ANA.email, res.body.result.message_id);
    expect(raw).toMatch(/Content-Type: multipart\/alternative/);
    expect(raw).toMatch(/Content-Type: text\/plain/);
  });
});
