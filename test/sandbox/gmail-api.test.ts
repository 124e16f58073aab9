import type { gmail_v1 } from '@googleapis/gmail';
import MailComposer from 'nodemailer/lib/mail-composer';
import { Readable } from 'node:stream';
import { SCOPES, useTestSandbox } from '../helpers/sandbox';

/** Gmail over HTTP, through the googleapis client the Hub uses, every response checked against Discovery. */

const ANA = 'ana@acme.example';
const BEN = 'ben@acme.example';
const METADATA = 'https://www.googleapis.com/auth/gmail.metadata';
const REPORT = Buffer.from('%PDF-1.4\n% monthly report\n');

const sb = useTestSandbox();
let ana: gmail_v1.Gmail;
let ben: gmail_v1.Gmail;
let seededIds: string[];

const client = async (email: string, scopes: readonly string[]) => sb.google.gmail(sb.google.withAccessToken(await sb.token(email, scopes)));
const compose = (options: ConstructorParameters<typeof MailComposer>[0]) => new MailComposer(options).compile().build();
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e) => e.response as { status: number; data: any },
  );

beforeEach(async () => {
  await sb.createAccount({
    email: ANA,
    name: 'Ana García',
    time_zone: 'Europe/Madrid',
    messages: [
      {
        from: `Ben Okafor <${BEN}>`,
        to: [ANA],
        subject: 'Monthly report',
        text: 'Report attached.',
        date: '2024-05-02T08:00:00Z',
        attachments: [{ filename: 'report.pdf', content_type: 'application/pdf', content_base64: REPORT.toString('base64') }],
      },
      { from: 'news@digest.example', to: [ANA], subject: 'Digest', html: '<p>Top <i>stories</i></p>', date: '2024-05-01T08:00:00Z', labels: ['INBOX'] },
    ],
  });
  await sb.createAccount({ email: BEN, name: 'Ben Okafor', time_zone: 'America/New_York' });
  const added = await sb.control('POST', `/accounts/${ANA}/messages`, {
    messages: [{ from: BEN, to: [ANA], subject: 'Later', text: 'Arrived after creation', date: '2024-05-03T08:00:00Z' }],
  });
  expect(added.status).toBe(201);
  const list = await (await client(ANA, [SCOPES.gmailReadonly])).users.messages.list({ userId: 'me' });
  seededIds = list.data.messages!.map((m) => m.id!);
  expect(seededIds[0]).toBe(added.body.ids[0]);
  ana = await client(ANA, [SCOPES.gmailModify]);
  ben = await client(BEN, [SCOPES.gmailModify]);
});

describe('reading', () => {
  test('when Ana reads her profile and labels, then counts, history id and system labels come back', async () => {
    const { data: profile } = await ana.users.getProfile({ userId: 'me' });
    expect(profile).toMatchObject({ emailAddress: ANA, messagesTotal: 3, threadsTotal: 3 });
    const { data: labels } = await ana.users.labels.list({ userId: ANA });
    expect(labels.labels!.map((l) => l.id)).toEqual(expect.arrayContaining(['INBOX', 'UNREAD', 'SENT']));
  });

  test('when she searches and reads a message with an attachment, then the payload and attachment bytes are right', async () => {
    const { data: list } = await ana.users.messages.list({ userId: 'me', q: 'from:ben has:attachment', maxResults: 10 });
    expect(list.messages).toHaveLength(1);
    const { data: msg } = await ana.users.messages.get({ userId: 'me', id: list.messages![0]!.id! });
    expect(msg.snippet).toBe('Report attached.');
    const part = msg.payload!.parts!.find((p) => p.filename === 'report.pdf')!;
    const { data: att } = await ana.users.messages.attachments.get({ userId: 'me', messageId: msg.id!, id: part.body!.attachmentId! });
    expect(Buffer.from(att.data!, 'base64url')).toEqual(REPORT);
    expect(att.size).toBe(REPORT.length);
  });

  test('when pages are requested, then nextPageToken walks the list newest first', async () => {
    const first = await ana.users.messages.list({ userId: 'me', maxResults: 2 });
    const second = await ana.users.messages.list({ userId: 'me', maxResults: 2, pageToken: first.data.nextPageToken! });
    expect([...first.data.messages!, ...second.data.messages!].map((m) => m.id)).toEqual(seededIds);
    expect(second.data.nextPageToken).toBeUndefined();
  });

  test('when formats metadata and raw are asked, then headers only / the whole message come back', async () => {
    const meta = await ana.users.messages.get({ userId: 'me', id: seededIds[2]!, format: 'metadata', metadataHeaders: ['Subject'] });
    expect(meta.data.payload).toEqual({ mimeType: 'text/html', headers: [{ name: 'Subject', value: 'Digest' }] });
    const raw = await ana.users.messages.get({ userId: 'me', id: seededIds[2]!, format: 'raw' });
    expect(Buffer.from(raw.data.raw!, 'base64url').toString()).toContain('Subject: Digest');
  });

  test("when the message is unknown, another mailbox is named, or the scope is metadata-only, then Gmail's errors come back", async () => {
    expect((await failure(ana.users.messages.get({ userId: 'me', id: '1fffffffffffffff' }))).status).toBe(404);
    const delegated = await failure(ana.users.messages.list({ userId: BEN }));
    expect(delegated.status).toBe(403);
    expect(delegated.data.error.message).toBe(`Delegation denied for ${BEN}`);
    const metadataOnly = await client(ANA, [METADATA]);
    const q = await failure(metadataOnly.users.messages.list({ userId: 'me', q: 'report' }));
    expect(q).toMatchObject({ status: 403, data: { error: { message: "Metadata scope does not support 'q' parameter" } } });
    expect((await metadataOnly.users.messages.get({ userId: 'me', id: seededIds[0]!, format: 'metadata' })).status).toBe(200);
  });
});

describe('sending between sandbox accounts', () => {
  test('when Ana sends Ben a MailComposer message with an attachment, then Ben reads it back, replies in the thread, and Ana sees the conversation', async () => {
    const raw = await compose({
      from: ANA,
      to: BEN,
      subject: 'Report for review',
      text: 'Could you check the numbers? ¿Vale?',
      attachments: [{ filename: 'report.pdf', content: REPORT }],
    });
    const { data: sent } = await ana.users.messages.send({ userId: 'me', requestBody: { raw: raw.toString('base64url') } });
    expect(sent.labelIds).toEqual(['SENT']);

    const { data: inbox } = await ben.users.messages.list({ userId: 'me', q: 'is:unread subject:review' });
    const { data: got } = await ben.users.messages.get({ userId: 'me', id: inbox.messages![0]!.id! });
    expect(got.payload!.headers!.find((h) => h.name === 'From')!.value).toBe(ANA);
    const text = got.payload!.parts!.find((p) => p.mimeType === 'text/plain')!;
    expect(Buffer.from(text.body!.data!, 'base64url').toString()).toBe('Could you check the numbers? ¿Vale?');
    const pdf = got.payload!.parts!.find((p) => p.filename === 'report.pdf')!;
    const { data: att } = await ben.users.messages.attachments.get({ userId: 'me', messageId: got.id!, id: pdf.body!.attachmentId! });
    expect(Buffer.from(att.data!, 'base64url')).toEqual(REPORT);

    const messageId = got.payload!.headers!.find((h) => h.name?.toLowerCase() === 'message-id')!.value!;
    const reply = await compose({ from: BEN, to: ANA, subject: 'Re: Report for review', text: 'Looks right.', inReplyTo: messageId, references: messageId });
    const { data: answer } = await ben.users.messages.send({ userId: 'me', requestBody: { raw: reply.toString('base64url'), threadId: got.threadId! } });
    expect(answer.threadId).toBe(got.threadId);

    const { data: thread } = await ana.users.threads.get({ userId: 'me', id: sent.threadId! });
    expect(thread.messages!.map((m) => m.labelIds)).toEqual([['SENT'], ['INBOX', 'UNREAD']]);
  });

  test('when the message is uploaded as media, then it is delivered like a raw one', async () => {
    const raw = await compose({ to: BEN, subject: 'Uploaded', text: 'via upload' });
    // googleapis builds upload URLs from the per-call rootUrl only (the client-level one is ignored for media).
    const perCall = { rootUrl: `${sb.url}/` };
    const { data } = await ana.users.messages.send({ userId: 'me', media: { mimeType: 'message/rfc822', body: Readable.from(raw) } }, perCall);
    expect(data.labelIds).toEqual(['SENT']);
    expect((await ben.users.messages.list({ userId: 'me', q: 'subject:uploaded' })).data.messages).toHaveLength(1);
    const withThread = await compose({ to: BEN, subject: 'Uploaded', text: 'metadata and media' });
    const multipart = await ana.users.messages.send(
      { userId: 'me', requestBody: { threadId: data.threadId! }, media: { mimeType: 'message/rfc822', body: Readable.from(withThread) } },
      perCall,
    );
    expect(multipart.status).toBe(200);
    expect((await ben.users.messages.list({ userId: 'me', q: 'subject:uploaded' })).data.messages).toHaveLength(2);
  });

  test('when a message has no recipient, then 400 Recipient address required', async () => {
    const res = await failure(
      ana.users.messages.send({ userId: 'me', requestBody: { raw: Buffer.from('Subject: nobody\r\n\r\nhello').toString('base64url') } }),
    );
    expect(res).toMatchObject({ status: 400, data: { error: { message: 'Recipient address required', errors: [{ reason: 'invalidArgument' }] } } });
  });
});

describe('labels', () => {
  test('when Ana stars, reads and trashes mail, then listings follow and bad labels are refused', async () => {
    const id = seededIds[0]!;
    const { data: modified } = await ana.users.messages.modify({ userId: 'me', id, requestBody: { addLabelIds: ['STARRED'], removeLabelIds: ['UNREAD'] } });
    expect(modified).toEqual({ id, threadId: id, labelIds: ['INBOX', 'STARRED'] });
    expect((await ana.users.messages.list({ userId: 'me', q: 'is:starred' })).data.messages!.map((m) => m.id)).toEqual([id]);
    const bad = await failure(ana.users.messages.modify({ userId: 'me', id, requestBody: { addLabelIds: ['Important stuff'] } }));
    expect(bad).toMatchObject({ status: 400, data: { error: { message: 'Invalid label: Important stuff' } } });

    const { data: trashed } = await ana.users.messages.trash({ userId: 'me', id });
    expect(trashed.labelIds).toEqual(['STARRED', 'TRASH']);
    expect((await ana.users.messages.list({ userId: 'me' })).data.messages!.map((m) => m.id)).not.toContain(id);
    expect((await ana.users.messages.list({ userId: 'me', includeSpamTrash: true })).data.messages!.map((m) => m.id)).toContain(id);
  });
});
