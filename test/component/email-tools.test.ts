import { emailCheckReplies } from '../../src/tools/email/check-replies';
import { emailRead } from '../../src/tools/email/read';
import { emailSearchV2 } from '../../src/tools/email/search-v2';
import { emailSend } from '../../src/tools/email/send';
import { sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { ANA, BEN, expectTool, mailboxAt, rawAtSandbox, rawHeader, rfc822, seedRaw, twoConnectedMailboxes } from '../helpers/email';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * The four email tools end to end: POST /api/internal/tools/execute/ → the Hub → googleapis → the Google
 * sandbox's Gmail, with the contract's example inputs, real threading between two mailboxes, non-ASCII and
 * HTML-only mail, nested multipart with attachments. Every answer is checked against openapi.yaml (client) and
 * every result against the tool's own output schema.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

const JOHN = 'john@example.com';
const proposal = {
  from: `John Smith <${JOHN}>`,
  to: [ANA.email],
  subject: 'Q1 Proposal',
  text: "Here's the proposal we discussed. Numbers inside.",
  date: '2024-01-10T09:30:00Z',
  attachments: [{ filename: 'proposal.pdf', content_type: 'application/pdf', content_base64: Buffer.alloc(2048, 7).toString('base64') }],
};

describe('the contract examples', () => {
  it('when email_search runs with the contract inputs, then it answers the contract shape with the matching message', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [proposal, { from: JOHN, to: [ANA.email], subject: 'Lunch?', text: 'no' }] });
    const res = await expectTool(hub, ana, 'email_search', { query: 'from:john@example.com subject:proposal', max_results: 10, include_body: false });
    expect(emailSearchV2.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.result).toEqual({
      messages: [
        {
          message_id: expect.stringMatching(/^[0-9a-f]+$/),
          thread_id: expect.stringMatching(/^[0-9a-f]+$/),
          from: JOHN,
          to: [ANA.email],
          subject: 'Q1 Proposal',
          snippet: expect.stringContaining("Here's the proposal"),
          date: '2024-01-10T09:30:00Z',
          has_attachments: true,
        },
      ],
      total_results: 1,
      // The bare name runs email_search@2: the contract's fields plus paging (email_search@1 answers these alone).
      result_size_estimate: 201,
      next_page_token: null,
    });
    expect(res.body.metadata.api_calls).toBe(2); // one list, one get
  });

  it('when email_read runs with mark_as_read, then it answers the contract shape and the message is no longer unread (one modify)', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [proposal] });
    const [stored] = mailboxAt(sb, ANA.email);
    const requests = await sandboxRequestsFrom(sb);
    const res = await expectTool(hub, ana, 'email_read', { message_id: stored!.id, mark_as_read: true });
    expect(emailRead.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.result).toEqual({
      message_id: stored!.id,
      thread_id: stored!.threadId,
      from: JOHN,
      to: [ANA.email],
      subject: 'Q1 Proposal',
      body: "Here's the proposal we discussed. Numbers inside.",
      date: '2024-01-10T09:30:00Z',
      attachments: [{ filename: 'proposal.pdf', size: 2048, mime_type: 'application/pdf', attachment_id: expect.stringMatching(/^ANGjdJ/) }],
    });
    expect(mailboxAt(sb, ANA.email)[0]!.labelIds).not.toContain('UNREAD');
    expect((await requests()).map((r) => r.operation)).toEqual(['gmail.users.messages.get', 'gmail.users.messages.modify']);
    expect(res.body.metadata.api_calls).toBe(2);

    // Already read: nothing left to change, so no modify call.
    const again = await expectTool(hub, ana, 'email_read', { message_id: stored!.id, mark_as_read: true });
    expect(again.body.metadata.api_calls).toBe(1);
  });

  it('when email_send runs with the contract inputs, then the mail is at the sandbox and the contract result comes back', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    const res = await expectTool(hub, ana, 'email_send', {
      to: ['recipient@example.com'],
      cc: [],
      bcc: [],
      subject: 'Meeting Follow-up',
      body: 'Hi, thanks for meeting today...',
      body_type: 'text',
      reply_to_message_id: null,
    });
    expect(emailSend.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.result).toEqual({ message_id: expect.any(String), thread_id: expect.any(String), status: 'sent' });
    expect(res.body.metadata.api_calls).toBe(1);
    expect(sb.world.gmail.outbound).toEqual([
      expect.objectContaining({ recipients: ['recipient@example.com'], subject: 'Meeting Follow-up', messageId: res.body.result.message_id }),
    ]);
    const raw = await rawAtSandbox(sb, ANA.email, res.body.result.message_id);
    // No From was sent: Gmail names the connected account, display name included.
    expect(rawHeader(raw, 'From')).toMatch(new RegExp(`^\\S.* <${ANA.email}>$`));
    expect(rawHeader(raw, 'To')).toBe('recipient@example.com');
    expect(rawHeader(raw, 'Subject')).toBe('Meeting Follow-up');
  });

  it('when email_check_replies runs with the contract inputs on a thread with a reply, then the reply comes back in the contract shape', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, {
      ana: [
        {
          from: ANA.email,
          to: [JOHN],
          subject: 'Q1 Proposal',
          text: 'Attached.',
          date: '2024-01-10T09:30:00Z',
          labels: ['SENT'],
          message_id: 'q1@acme.example',
        },
        {
          from: JOHN,
          to: [ANA.email],
          subject: 'Re: Q1 Proposal',
          text: "Thanks, I've reviewed and have notes.",
          date: '2024-01-11T14:22:00Z',
          thread_with: 'q1@acme.example',
        },
      ],
    });
    const threadId = mailboxAt(sb, ANA.email)[0]!.threadId;
    const res = await expectTool(hub, ana, 'email_check_replies', { thread_id: threadId, since: '2024-01-10T09:30:00Z' });
    expect(emailCheckReplies.output.safeParse(res.body.result).success).toBe(true);
    expect(res.body.result).toEqual({
      has_new_replies: true,
      replies: [
        { message_id: mailboxAt(sb, ANA.email)[1]!.id, from: JOHN, snippet: expect.stringContaining("Thanks, I've reviewed"), date: '2024-01-11T14:22:00Z' },
      ],
    });
    expect(res.body.metadata.api_calls).toBe(2); // threads.get + getProfile (then cached)
    const later = await expectTool(hub, ana, 'email_check_replies', { thread_id: threadId, since: '2024-01-11T14:22:00Z' });
    expect(later.body.result).toEqual({ has_new_replies: false, replies: [] });
    expect(later.body.metadata.api_calls).toBe(1);
  });
});

describe('threading', () => {
  it('when A sends to B and B replies via reply_to_message_id, then the reply is threaded by its headers and A sees it with check_replies', async () => {
    const { ana, ben } = await twoConnectedMailboxes(hub, sb);
    const sentAt = new Date(Date.now() - 1000).toISOString();
    const sent = await expectTool(hub, ana, 'email_send', { to: [`${BEN.name} <${BEN.email}>`], subject: 'Café plan ☕', body: 'Shall we meet on Friday?' });
    const anaThread = sent.body.result.thread_id as string;

    // Ben finds it in his own mailbox (his own ids) and answers without a subject.
    const found = await expectTool(hub, ben, 'email_search', { query: 'subject:plan' });
    expect(found.body.result.messages).toHaveLength(1);
    const original = found.body.result.messages[0];
    expect(original).toMatchObject({ from: ANA.email, to: [BEN.email], subject: 'Café plan ☕' });
    const reply = await expectTool(hub, ben, 'email_send', { to: [ANA.email], body: 'Friday works. — Ben', reply_to_message_id: original.message_id });
    expect(reply.body.result.thread_id).toBe(original.thread_id);
    expect(reply.body.metadata.api_calls).toBe(2); // the original's headers, then the send

    // The headers a standard mail client threads by.
    const originalRaw = await rawAtSandbox(sb, BEN.email, original.message_id);
    const replyRaw = await rawAtSandbox(sb, BEN.email, reply.body.result.message_id);
    const originalId = rawHeader(originalRaw, 'Message-ID')!;
    expect(originalId).toMatch(/^<.+@.+>$/);
    expect(rawHeader(replyRaw, 'In-Reply-To')).toBe(originalId);
    expect(rawHeader(replyRaw, 'References')).toBe(originalId);
    expect(rawHeader(replyRaw, 'Subject')).toMatch(/^=\?UTF-8\?/i); // "Re: Café plan ☕", RFC 2047-encoded

    // Ana's copy of the reply landed in her original thread, and check_replies sees exactly it.
    const check = await expectTool(hub, ana, 'email_check_replies', { thread_id: anaThread, since: sentAt });
    expect(check.body.result.has_new_replies).toBe(true);
    expect(check.body.result.replies).toEqual([
      { message_id: expect.any(String), from: BEN.email, snippet: expect.stringContaining('Friday works'), date: expect.stringMatching(/Z$/) },
    ]);
    const read = await expectTool(hub, ana, 'email_read', { message_id: check.body.result.replies[0].message_id });
    expect(read.body.result).toMatchObject({ thread_id: anaThread, subject: 'Re: Café plan ☕', body: 'Friday works. — Ben' });

    // A second round: Ana answers Ben's reply; References now holds the whole chain.
    const second = await expectTool(hub, ana, 'email_send', {
      to: [BEN.email],
      subject: 'RE: café plan ☕',
      body: 'See you.',
      reply_to_message_id: read.body.result.message_id,
    });
    expect(second.body.result.thread_id).toBe(anaThread);
    const secondRaw = await rawAtSandbox(sb, ANA.email, second.body.result.message_id);
    expect(rawHeader(secondRaw, 'References')).toBe(`${originalId} ${rawHeader(replyRaw, 'Message-ID')}`);
  });

  it('when a reply gives a different subject, then it is refused (Gmail would split the conversation) and nothing is sent', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [proposal] });
    const [stored] = mailboxAt(sb, ANA.email);
    const res = await expectTool(hub, ana, 'email_send', { to: [JOHN], subject: 'Something else', body: 'x', reply_to_message_id: stored!.id }, 400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'inputs.subject' }] } });
    expect(sb.world.gmail.outbound).toEqual([]);
  });

  it('when reply_to_message_id is unknown or not a Gmail id, then RESOURCE_NOT_FOUND and nothing is sent', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb);
    for (const id of ['18c0ffee00000000', 'msg_abc123']) {
      const res = await expectTool(hub, ana, 'email_send', { to: [JOHN], body: 'x', reply_to_message_id: id }, 404);
      expect(res.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', retryable: false, details: { message_id: id } });
    }
    expect(sb.world.gmail.outbound).toEqual([]);
  });
});

describe('content', () => {
  it('when mail has non-ASCII names, subject and body, then it goes out RFC 2047/UTF-8 encoded and reads back intact', async () => {
    const { ana, ben } = await twoConnectedMailboxes(hub, sb);
    const body = 'Grüße aus Köln — 你好, ¿qué tal? 🎉\nZeile zwei.';
    const sent = await expectTool(hub, ana, 'email_send', {
      to: ['Bén Økafor <ben@acme.example>'],
      cc: ['Zoë <zoe@else.example>'],
      subject: 'Über das Treffen — 会议',
      body,
    });
    const raw = await rawAtSandbox(sb, ANA.email, sent.body.result.message_id);
    expect(raw).toMatch(/^[\x00-\x7f]*$/);
    expect(rawHeader(raw, 'To')).toMatch(/^=\?UTF-8\?[QB]\?.+\?= <ben@acme\.example>$/i);
    const [copy] = mailboxAt(sb, BEN.email);
    const read = await expectTool(hub, ben, 'email_read', { message_id: copy!.id });
    expect(read.body.result).toMatchObject({ from: ANA.email, to: [BEN.email], subject: 'Über das Treffen — 会议', body, attachments: [] });
  });

  it('when HTML is sent, then the recipient gets multipart/alternative and reads text derived from the HTML', async () => {
    const { ana, ben } = await twoConnectedMailboxes(hub, sb);
    await expectTool(hub, ana, 'email_send', {
      to: [BEN.email],
      subject: 'Agenda',
      body: '<h2>Agenda</h2><ol><li>Budget</li><li>Hiring</li></ol><p>See <a href="https://docs.example/q1">the doc</a>.</p>',
      body_type: 'html',
    });
    const [copy] = mailboxAt(sb, BEN.email);
    expect(copy!.mime.mimeType).toBe('multipart/alternative');
    const read = await expectTool(hub, ben, 'email_read', { message_id: copy!.id });
    expect(read.body.result.body).toMatch(/AGENDA[\s\S]*1\. Budget\n\s*2\. Hiring[\s\S]*See the doc \[https:\/\/docs\.example\/q1\]\./);
  });

  it('when mail is HTML only (ISO-8859-1, quoted-printable), then email_read returns its text', async () => {
    const raw = rfc822(
      'From: Zoé <zoe@else.example>',
      `To: ${ANA.email}`,
      'Subject: =?ISO-8859-1?Q?R=E9union?=',
      'Date: Wed, 10 Jan 2024 09:30:00 +0000',
      'Message-ID: <h1@else.example>',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=ISO-8859-1',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      '<html><body><p>R=E9union =E0 midi.</p><p>Caf=E9 cr=E8me</p></body></html>',
    );
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [seedRaw(raw)] });
    const [stored] = mailboxAt(sb, ANA.email);
    const read = await expectTool(hub, ana, 'email_read', { message_id: stored!.id });
    expect(read.body.result).toMatchObject({
      from: 'zoe@else.example',
      subject: 'Réunion',
      body: 'Réunion à midi.\n\nCafé crème',
      date: '2024-01-10T09:30:00Z',
      attachments: [],
    });
  });

  it('when mail nests alternative inside mixed with attachments (base64, UTF-8), then body, attachments and has_attachments are exact', async () => {
    const raw = rfc822(
      'From: john@example.com',
      `To: ${ANA.email}, Ben <${BEN.email}>`,
      'Subject: Deck',
      'Date: Wed, 10 Jan 2024 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="m"',
      '',
      '--m',
      'Content-Type: multipart/alternative; boundary="a"',
      '',
      '--a',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('Deck attached — ünïcode.').toString('base64'),
      '--a',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Deck attached</p>',
      '--a--',
      '--m',
      'Content-Type: application/pdf; name="deck.pdf"',
      'Content-Disposition: attachment; filename="deck.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.alloc(300, 1).toString('base64'),
      '--m',
      'Content-Type: image/png',
      'Content-Disposition: attachment; filename="chart.png"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.alloc(50, 2).toString('base64'),
      '--m--',
    );
    const plain = { from: JOHN, to: [ANA.email], subject: 'No files', text: 'nothing attached', date: '2024-01-09T10:00:00Z' };
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [seedRaw(raw), plain] });
    const search = await expectTool(hub, ana, 'email_search', { query: 'from:john@example.com', include_body: true });
    expect(
      search.body.result.messages.map((m: { subject: string; has_attachments: boolean; body: string; to: string[] }) => [
        m.subject,
        m.has_attachments,
        m.body,
        m.to,
      ]),
    ).toEqual([
      ['Deck', true, 'Deck attached — ünïcode.', [ANA.email, BEN.email]],
      ['No files', false, 'nothing attached', [ANA.email]],
    ]);
    const read = await expectTool(hub, ana, 'email_read', { message_id: search.body.result.messages[0].message_id });
    expect(read.body.result.attachments.map((a: { filename: string; size: number; mime_type: string }) => [a.filename, a.size, a.mime_type])).toEqual([
      ['deck.pdf', 300, 'application/pdf'],
      ['chart.png', 50, 'image/png'],
    ]);
  });

  it('when a search matches nothing, then the result is empty and only the list call was made', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [proposal] });
    const res = await expectTool(hub, ana, 'email_search', { query: 'from:nobody@nowhere.example' });
    expect(res.body.result).toEqual({ messages: [], total_results: 0, result_size_estimate: 0, next_page_token: null });
    expect(res.body.metadata.api_calls).toBe(1);
  });

  it('when a search matches more than max_results, then the newest max_results come back', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({
      from: JOHN,
      to: [ANA.email],
      subject: `Update ${i}`,
      text: `n${i}`,
      date: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    }));
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: many });
    // That the five gets overlap (not 5 × Gmail's latency) is measured alone: test/timing/email-search-concurrency.test.ts.
    const res = await expectTool(hub, ana, 'email_search', { query: 'subject:update', max_results: 5 });
    expect(res.body.result.messages.map((m: { subject: string }) => m.subject)).toEqual(['Update 11', 'Update 10', 'Update 9', 'Update 8', 'Update 7']);
    expect(res.body.metadata.api_calls).toBe(6);
  });
});
