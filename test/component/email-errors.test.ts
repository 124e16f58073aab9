import { sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { ANA, expectTool, mailboxAt, twoConnectedMailboxes } from '../helpers/email';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * How Gmail's failures reach the agent through the email tools (the Hub's shared mapping), that
 * metadata.api_calls counts every request Google saw, body truncation, and the tools' catalog entries.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb, { HUB_MAX_BODY_CHARS: '1000' }) });
});
afterAll(() => hub.close());
afterEach(() => sb.control('DELETE', '/faults'));

const JOHN = 'john@example.com';
const note = (subject: string, text = 'hello') => ({ from: JOHN, to: [ANA.email], subject, text });

/** Requests Google saw since `since()` was made must equal what the Hub reported. */
async function expectApiCalls(res: { body: { metadata: { api_calls: number } } }, requests: () => Promise<unknown[]>) {
  expect(res.body.metadata.api_calls).toBe((await requests()).length);
}

describe('errors', () => {
  it('when an id is unknown, then email_read and email_check_replies answer RESOURCE_NOT_FOUND', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    for (const id of ['18c0ffee00000000', 'msg_abc123']) {
      const read = await expectTool(hub, ana, 'email_read', { message_id: id }, 404);
      expect(read.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', retryable: false, details: { message_id: id } });
    }
    const thread = await expectTool(hub, ana, 'email_check_replies', { thread_id: 'thread_xyz789', since: '2024-01-10T09:30:00Z' }, 404);
    expect(thread.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', details: { thread_id: 'thread_xyz789' } });
  });

  it('when Gmail rate limits a search with 429 until retries run out, then RATE_LIMITED (retryable) with every attempt counted', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [note('a')] });
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.list', preset: 'tooManyRequests', retry_after_s: 0 });
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_search', { query: '' }, 429);
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, details: { scope: 'upstream' } });
    expect(res.body.metadata.api_calls).toBe(4); // the first attempt and HUB_GOOGLE_MAX_RETRIES (3) retries
    await expectApiCalls(res, requests);
  });

  it('when Gmail answers one 429 and then succeeds, then the search succeeds and the retry is counted', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [note('a'), note('b')] });
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.get', preset: 'tooManyRequests', times: 1 });
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_search', { query: '' });
    expect(res.body.result.total_results).toBe(2);
    expect(res.body.metadata.api_calls).toBe(4);
    await expectApiCalls(res, requests);
  });

  it('when Gmail rate limits a send, then RATE_LIMITED and the send was attempted once (never repeated)', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', preset: 'rateLimitExceeded' });
    const res = await expectTool(hub, ana, 'email_send', { to: [JOHN], subject: 's', body: 'b' }, 429);
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(res.body.metadata.api_calls).toBe(1);
  });

  it('when Gmail keeps failing with 500, then EXTERNAL_API_ERROR carries the upstream status and is retryable', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [note('a')] });
    await sb.control('POST', '/faults', { operation: 'gmail.users.messages.get', status: 500 });
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_read', { message_id: mailboxAt(sb, ANA.email)[0]!.id }, 502);
    expect(res.body.error).toMatchObject({ code: 'EXTERNAL_API_ERROR', retryable: true, details: { upstream_status: 500 } });
    expect(JSON.stringify(res.body)).not.toMatch(/stack|at .*\.ts/);
    await expectApiCalls(res, requests);
  });

  it('when Gmail refuses a call for missing scopes, then INTEGRATION_PERMISSION_DENIED with a setup_url', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    await sb.control('POST', '/faults', {
      operation: 'gmail.users.threads.get',
      status: 403,
      body: {
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
          status: 'PERMISSION_DENIED',
        },
      },
    });
    const res = await expectTool(hub, ana, 'email_check_replies', { thread_id: '18c0ffee00000000', since: '2024-01-10T09:30:00Z' }, 403);
    expect(res.body.error).toMatchObject({ code: 'INTEGRATION_PERMISSION_DENIED', details: { integration: 'google_gmail', setup_url: expect.any(String) } });
  });

  it('when since is not an ISO 8601 date-time with an offset, then VALIDATION_ERROR', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const res = await expectTool(hub, ana, 'email_check_replies', { thread_id: 'abc', since: 'yesterday' }, 400);
    expect(res.body.error.details.issues).toEqual([{ path: 'inputs.since', message: expect.any(String) }]);
  });
});

describe('size limits (HUB_MAX_BODY_CHARS = 1000 here)', () => {
  it('when a body is longer than the limit, then it is cut and flagged truncated, in email_read and email_search', async () => {
    const long = `${'lorem ipsum '.repeat(300)}THE END`;
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [note('long', long), note('short', 'brief')] });
    const [longMsg] = mailboxAt(sb, ANA.email);
    const read = await expectTool(hub, ana, 'email_read', { message_id: longMsg!.id });
    expect(read.body.result.body).toHaveLength(1000);
    expect(read.body.result.truncated).toBe(true);
    const search = await expectTool(hub, ana, 'email_search', { query: '', include_body: true });
    const bySubject = Object.fromEntries(search.body.result.messages.map((m: { subject: string }) => [m.subject, m]));
    expect(bySubject.long).toMatchObject({ truncated: true, body: long.slice(0, 1000) });
    expect(bySubject.short).toEqual(expect.objectContaining({ body: 'brief' }));
    expect(bySubject.short).not.toHaveProperty('truncated');
    const lean = await expectTool(hub, ana, 'email_search', { query: '' });
    expect(lean.body.result.messages[0]).not.toHaveProperty('body');
  });
});

describe('catalog', () => {
  it('when the catalog is read, then the four email tools list their least-privilege scopes, side effects and strict input schemas', async () => {
    const res = await client(hub.app).get('/api/internal/tools/').set('Authorization', serviceAuth()).expect(200);
    const byName = Object.fromEntries(res.body.tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.email_send).toMatchObject({ integration: 'google_gmail', required_scopes: ['gmail.send'], side_effects: 'writes', version: '1.1.0' });
    expect(byName.email_search).toMatchObject({ required_scopes: ['gmail.readonly'], side_effects: 'reads' });
    expect(byName.email_read).toMatchObject({ required_scopes: ['gmail.readonly'], side_effects: 'reads' });
    expect(byName.email_check_replies).toMatchObject({ required_scopes: ['gmail.metadata'], side_effects: 'reads' });
    expect(byName.email_send.input_schema).toMatchObject({ type: 'object', additionalProperties: false, required: expect.arrayContaining(['to', 'body']) });
    expect(Object.keys(byName.email_send.input_schema.properties)).toEqual([
      'to',
      'cc',
      'bcc',
      'subject',
      'body',
      'body_type',
      'reply_to_message_id',
      'provider',
    ]);
    for (const tool of ['email_send', 'email_search', 'email_read', 'email_check_replies']) {
      for (const [field, schema] of Object.entries(byName[tool].input_schema.properties as Record<string, { description?: string }>)) {
        expect([tool, field, typeof schema.description]).toEqual([tool, field, 'string']);
      }
    }
  });
});
