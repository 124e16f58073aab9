import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { googleScope } from '../../src/integrations/catalog';
import { openRedis } from '../../src/store/redis';
import { accountKey } from '@hub/google-sandbox';
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

/** What a Hub that died between Gmail's answer and its own record leaves: the record running, its lease passed. */
const diedMidSend = (on: TestHub = hub) =>
  on.testDb.db.exec(`UPDATE idempotency_records SET state = 'running', outcome = NULL, lease_until = now() - interval '1 second'`);
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
    [
      'more than 100 recipients in all',
      { ...mail, to: Array.from({ length: 60 }, (_, i) => `t${i}@x.example`), cc: Array.from({ length: 41 }, (_, i) => `c${i}@x.example`) },
      'inputs.to',
    ],
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

  const ops = (requests: { operation?: string }[]) => requests.map((r) => r.operation);
  const SEND = 'gmail.users.messages.send';
  const LIST = 'gmail.users.messages.list';
  const GET = 'gmail.users.messages.get';

  it('when Gmail answers 500 to a send it carried out, then the Hub finds it in Sent, answers 200 with it, and a retry replays it', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: SEND, preset: 'backendError', apply_first: true, times: 1 });
    const requests = await sandboxRequestsFrom(sb);
    const requestId = `send-${randomUUID()}`;
    const first = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    const [copy] = sentBy(ANA.email);
    expect(first.body.result).toEqual({ message_id: copy!.id, thread_id: copy!.threadId, status: 'sent' });
    expect(ops(await requests())).toEqual([SEND, LIST, GET]); // the newest sent message is the one
    expect(first.body.metadata.api_calls).toBe(3);
    const again = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(again.body).toMatchObject({ result: first.body.result, metadata: { idempotent_replay: true, api_calls: 0 } });
    expect(sentBy(ANA.email)).toHaveLength(1);
    expect(mailboxAt(sb, BEN.email)).toHaveLength(1);
  });

  it('when Gmail answers 500 without sending, then outcome not_sent, retryable; the retry checks Sent first and sends once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: SEND, preset: 'backendError', times: 1 });
    const requests = await sandboxRequestsFrom(sb);
    const requestId = `send-${randomUUID()}`;
    const failed = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(failed.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 500, outcome: 'not_sent' } });
    // The tool's words name the vendor of the connection: Gmail here (Outlook's: outlook-send-uncertain.test.ts).
    expect(failed.body.error.message).toMatch(/^Gmail did not confirm the send \(HTTP 500\), and the message is not in Sent: it was not sent/);
    expect(ops(await requests())).toEqual([SEND, LIST]); // one send, never repeated by the Hub; Sent is empty
    const retry = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(ops(await requests())).toEqual([SEND, LIST, LIST, SEND]); // the retry looked again before sending
    expect(retry.body.metadata.api_calls).toBe(2);
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when the connection drops after Gmail accepted the send, then the Hub finds it in Sent and answers 200', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: SEND, drop: true, apply_first: true, times: 1 });
    const requestId = `send-${randomUUID()}`;
    const res = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(res.body.result.message_id).toBe(sentBy(ANA.email)[0]!.id);
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when the connection drops and nothing was sent, then outcome unknown but retryable with the request_id; the retry checks and sends once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: SEND, drop: true, times: 1 });
    const requestId = `send-${randomUUID()}`;
    const failed = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(failed.body.error).toMatchObject({
      code: 'EXTERNAL_API_ERROR',
      retryable: true,
      retry_after_s: 5,
      details: { outcome: 'unknown', verification: 'not_found_yet' },
    });
    await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when the grant cannot read Sent and Gmail answers 500 after sending, then outcome unknown, not retryable, and a retry replays it instead of sending', async () => {
    await sb.createAccount(ANA);
    await sb.createAccount(BEN);
    const ana = await connectToSandbox(hub, sb, { email: ANA.email, integration: 'google_gmail', scopes: [googleScope('gmail.send')] });
    await sb.control('POST', '/faults', { operation: SEND, preset: 'backendError', apply_first: true, times: 1 });
    const requestId = `send-${randomUUID()}`;
    const failed = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(failed.body.error).toMatchObject({
      code: 'EXTERNAL_API_ERROR',
      retryable: false,
      details: { upstream_status: 500, outcome: 'unknown', verification: 'no_read_scope' },
      message: expect.stringContaining('(the connection has no Gmail read access to check Sent); it was not sent again. Check the Sent folder'),
    });
    const again = await expectTool(hub, ana, 'email_send', mail, 502, requestId);
    expect(again.body.metadata).toMatchObject({ api_calls: 0, idempotent_replay: true });
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when a send without request_id gets a 500 after Gmail sent it, then the Hub still finds it and answers 200', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: SEND, preset: 'unavailable', apply_first: true, times: 1 });
    const res = await expectTool(hub, ana, 'email_send', mail, 200);
    expect(res.body.result.message_id).toBe(sentBy(ANA.email)[0]!.id);
  });

  it('when Gmail rate-limits a send (429), then it was refused, not uncertain: no lookup, retryable, and the retry sends once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: SEND, preset: 'tooManyRequests', times: 1 });
    const requests = await sandboxRequestsFrom(sb);
    const requestId = `send-${randomUUID()}`;
    const limited = await expectTool(hub, ana, 'email_send', mail, 429, requestId);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(ops(await requests())).toEqual([SEND]);
    await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(ops(await requests())).toEqual([SEND, SEND]);
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when the Hub died after Gmail accepted (record running, lease passed), then the retry finds the mail in Sent and answers with it', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const requestId = `send-${randomUUID()}`;
    const first = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    await diedMidSend();
    const requests = await sandboxRequestsFrom(sb);
    const retry = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(retry.body.result).toEqual(first.body.result);
    expect(ops(await requests())).toEqual([LIST, GET]);
    expect(sentBy(ANA.email)).toHaveLength(1);
  });

  it('when the Hub died before Gmail got the mail (record running, lease passed, nothing in Sent), then the retry checks and sends once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const requestId = `send-${randomUUID()}`;
    await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    await diedMidSend();
    const mb = sb.world.gmail.mailboxes.get(accountKey(ANA.email))!;
    for (const m of sentBy(ANA.email)) mb.messages.delete(m.id); // as if it had never reached Gmail
    const retry = await expectTool(hub, ana, 'email_send', mail, 200, requestId);
    expect(sentBy(ANA.email).map((m) => m.id)).toEqual([retry.body.result.message_id]);
  });

  it('when more sent mail followed than the lookup may read, then the taken-over send answers outcome unknown, not retryable', async () => {
    const narrow = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_SEND_VERIFY_MAX_MESSAGES: '2' }) });
    try {
      const { ana } = await twoConnectedMailboxes(narrow, sb);
      const requestId = `send-${randomUUID()}`;
      await expectTool(narrow, ana, 'email_send', mail, 200, requestId);
      for (const n of [1, 2]) await expectTool(narrow, ana, 'email_send', { ...mail, subject: `Later ${n}` });
      await diedMidSend(narrow);
      const res = await expectTool(narrow, ana, 'email_send', mail, 502, requestId);
      expect(res.body.error).toMatchObject({ retryable: false, details: { outcome: 'unknown', verification: 'scan_limit' } });
      expect(sentBy(ANA.email)).toHaveLength(3);
    } finally {
      await narrow.close();
    }
  });

  const { redisUrl } = services();
  (redisUrl ? it : it.skip)('when retries of one send land on two replicas sharing Redis, then Gmail receives it once', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', latency_ms: 100 });
    const [redisA, redisB]: Redis[] = [await openRedis(redisUrl!, captureLogs().logger), await openRedis(redisUrl!, captureLogs().logger)];
    try {
      const replica = (redis: Redis) => ({
        ...hub,
        app: createApp({ config: testConfig(sandboxHubEnv(sb)), logger: captureLogs().logger, db: hub.testDb.db, redis, tools: BUILT_IN_TOOLS }).app,
      });
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
      details: {
        integration: 'google_gmail',
        required_scopes: ['gmail.send', 'gmail.metadata'],
        granted_scopes: ['gmail.send'],
        missing_scopes: ['gmail.metadata'],
        setup_url: expect.any(String),
      },
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
