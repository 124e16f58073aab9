import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { googleScope } from '../../src/integrations/integrations';
import { openRedis } from '../../src/store/redis';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { connectToSandbox, runTool, sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { ANA, BEN, expectTool, mailboxAt, twoConnectedMailboxes } from '../helpers/email';
import { services, testConfig } from '../helpers/env';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * email_send's safety: inputs that could inject headers or address nobody are refused before anything reaches
 * Gmail; a request_id makes a send happen at most once (replays, in-flight conflicts, unknown outcomes); a
 * reply needs read access to the original, checked before any Google call.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

const sentBy = (email: string) => mailboxAt(sb, email).filter((m) => m.labelIds.includes('SENT'));
const mail = { to: [BEN.email], subject: 'Hello', body: 'Hi Ben' };

describe('validation and header injection', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['CR/LF in the subject', { ...mail, subject: 'Hi\r\nBcc: evil@attacker.example' }, 'inputs.subject'],
    ['a bare LF in the subject', { ...mail, subject: 'Hi\nX-Injected: 1' }, 'inputs.subject'],
    ['CR/LF after an address', { ...mail, to: ['ben@acme.example\r\nBcc: evil@attacker.example'] }, 'inputs.to[0]'],
    ['a line break in a display name', { ...mail, cc: ['Evil\nBcc: x@attacker.example <e@attacker.example>'] }, 'inputs.cc[0]'],
    ['a NUL in the subject', { ...mail, subject: 'Hi\u0000there' }, 'inputs.subject'],
    ['two addresses in one entry', { ...mail, bcc: ['a@x.example, b@x.example'] }, 'inputs.bcc[0]'],
    ['not an address', { ...mail, to: ['ben at acme'] }, 'inputs.to[0]'],
    ['no recipient at all', { ...mail, to: [], cc: [], bcc: null }, 'inputs.to'],
    ['more than 100 recipients in all', { ...mail, to: Array.from({ length: 60 }, (_, i) => `t${i}@x.example`), cc: Array.from({ length: 41 }, (_, i) => `c${i}@x.example`) }, 'inputs.to'],
    ['no subject on a new message', { to: [BEN.email], body: 'x' }, 'inputs.subject'],
    ['an unknown body_type', { ...mail, body_type: 'markdown' }, 'inputs.body_type'],
    ['an unknown field', { ...mail, from: 'ceo@acme.example' }, 'inputs.from'],
  ];
  it.each(cases)('when the inputs carry %s, then VALIDATION_ERROR names the field and nothing reaches Gmail', async (_what, inputs, path) => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_send', inputs, 400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await requests()).toEqual([]);
    expect(sentBy(ANA.email)).toEqual([]);
  });

  it('when only bcc is given, then the mail goes out and the Bcc header never reaches the recipient', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await expectTool(hub, ana, 'email_send', { to: [], bcc: [BEN.email], subject: 'Quiet', body: 'psst' });
    const [copy] = mailboxAt(sb, BEN.email);
    expect(copy!.subject).toBe('Quiet');
    expect(copy!.raw).not.toMatch(/^Bcc:/im);
  });
});

describe('at most once with a request_id', () => {
  it('when the same request_id is sent twice, then one message exists and the retry replays the first result without a Google call', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const requestId = `send-${randomUUID()}`;
    const first = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    const again = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(again.body.result).toEqual(first.body.result);
    expect(again.body.metadata).toMatchObject({ api_calls: 0, idempotent_replay: true });
    expect(sentBy(ANA.email)).toHaveLength(1);
    expect(mailboxAt(sb, BEN.email)).toHaveLength(1);

    const other = await expectTool(hub, ana, 'email_send', { ...mail, body: 'different' }, 409, requestId);
    expect(other.body.error).toMatchObject({ code: 'CONFLICT', retryable: false, details: { reason: 'request_id_reused' } });
  });

  it('when a retry arrives while the first send is still in flight, then it gets a retryable CONFLICT and one message is sent', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', latency_ms: 300 });
    const requestId = `send-${randomUUID()}`;
    const first = expectTool(hub, ana, 'email_send', mail, 200, requestId);
    await new Promise((r) => setTimeout(r, 100));
    const second = await expectTool(hub, ana, 'email_send', mail, 409, requestId);
    expect(second.body.error).toMatchObject({ code: 'CONFLICT', retryable: true, details: { reason: 'request_in_progress' } });
    expect(second.body.error.retry_after_s).toBeGreaterThanOrEqual(1);
    await first;
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when Gmail fails the send with a 500, then it is not repeated by the Hub, and a retry with the same request_id sends once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', preset: 'backendError', times: 1 });
    const requests = await sandboxRequestsFrom(sb);
    const requestId = `send-${randomUUID()}`;
    const failed = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(failed.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 500 } });
    expect(failed.body.metadata.api_calls).toBe(1);
    expect((await requests()).filter((r) => r.operation === 'gmail.users.messages.send')).toHaveLength(1);
    await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when the connection drops mid-send, then the outcome is unknown, not retryable, and a retry with the same request_id replays that answer', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', drop: true, times: 1 });
    const requestId = `send-${randomUUID()}`;
    const failed = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(failed.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: false, details: { outcome: 'unknown' } });
    const again = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(again.body.metadata).toMatchObject({ api_calls: 0, idempotent_replay: true });
    const requests = (await sb.control('GET', '/requests')).body.requests as { operation?: string }[];
    expect(requests.filter((r) => r.operation === 'gmail.users.messages.send')).toHaveLength(1);
  });

  const { redisUrl } = services();
  (redisUrl ? it : it.skip)('when retries of one send land on two replicas sharing Redis, then Gmail receives it once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', latency_ms: 100 });
    const [redisA, redisB]: Redis[] = [await openRedis(redisUrl!, captureLogs().logger), await openRedis(redisUrl!, captureLogs().logger)];
    try {
      const replica = (redis: Redis) => ({ ...hub, app: createApp({ config: testConfig(sandboxHubEnv(sb)), logger: captureLogs().logger, db: hub.testDb.db, redis, tools: BUILT_IN_TOOLS }).app });
      const [a, b] = [replica(redisA!), replica(redisB!)];
      const requestId = `send-${randomUUID()}`;
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => runTool(i % 2 ? a : b, ana, 'email_send', mail, { requestId })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      expect(sentBy(ANA.email)).toHaveLength(1);
    } finally {
      await redisA!.quit();
      await redisB!.quit();
    }
  });
});

describe('scopes', () => {
  it('when the grant has gmail.send only, then a new mail goes out but a reply is refused before any Google call', async () => {
    await sb.createAccount({ ...ANA, messages: [{ from: BEN.email, to: [ANA.email], subject: 'Question', text: '?' }] });
    const ana = await connectToSandbox(hub, sb, { email: ANA.email, integration: 'google_gmail', scopes: [googleScope('gmail.send')] });
    await expectTool(hub, ana, 'email_send', mail);
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_send', { to: [BEN.email], body: 'Yes.', reply_to_message_id: mailboxAt(sb, ANA.email)[0]!.id }, 403);
    expect(res.body.error).toMatchObject({
      code: 'INTEGRATION_PERMISSION_DENIED',
      details: { integration: 'google_gmail', required_scopes: ['gmail.send', 'gmail.metadata'], granted_scopes: ['gmail.send'], missing_scopes: ['gmail.metadata'], setup_url: expect.any(String) },
    });
    expect(await requests()).toEqual([]);
    const search = await expectTool(hub, ana, 'email_search', { query: '' }, 403);
    expect(search.body.error.details.missing_scopes).toEqual(['gmail.readonly']);
  });

  it('when the grant is read-only, then email_read works but mark_as_read is refused before anything is read', async () => {
    await sb.createAccount({ ...ANA, messages: [{ from: BEN.email, to: [ANA.email], subject: 'Question', text: '?' }] });
    const ana = await connectToSandbox(hub, sb, { email: ANA.email, integration: 'google_gmail', scopes: [googleScope('gmail.readonly')] });
    const id = mailboxAt(sb, ANA.email)[0]!.id;
    await expectTool(hub, ana, 'email_read', { message_id: id });
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_read', { message_id: id, mark_as_read: true }, 403);
    expect(res.body.error.details).toMatchObject({ missing_scopes: ['gmail.modify'], required_scopes: ['gmail.readonly', 'gmail.modify'] });
    expect(await requests()).toEqual([]);
    expect(mailboxAt(sb, ANA.email)[0]!.labelIds).toContain('UNREAD');
  });
});
