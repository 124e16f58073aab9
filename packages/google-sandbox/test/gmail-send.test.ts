import MailComposer from 'nodemailer/lib/mail-composer';
import type { ApiCall, ApiResult } from '../src/api/types';
import { createClock } from '../src/clock';
import { demoAccounts } from '../src/demo-data';
import { allMethods, loadDiscoveryDocuments } from '../src/discovery/documents';
import { checkResponseBody } from '../src/discovery/schema-check';
import { GMAIL_HANDLERS } from '../src/gmail/handlers';
import { seedMailbox } from '../src/gmail/seed';
import { createGmailState } from '../src/gmail/state';
import { createRandom } from '../src/random';
import { type Account, type World, createWorld } from '../src/world';

/** messages.send (delivery, Gmail's header fix-ups, threading) and seeding, called as the dispatcher calls them. */

const doc = loadDiscoveryDocuments()[1]!;
const responseRef = new Map(allMethods(doc).map((m) => [m.id, m.response?.$ref]));
const MODIFY = 'https://www.googleapis.com/auth/gmail.modify';

const ANA: Account = { email: 'ana@acme.example', name: 'Ana García', timeZone: 'Europe/Madrid' };
const BEN: Account = { email: 'ben@acme.example', name: 'Ben Okafor', timeZone: 'America/New_York' };
const CARLA: Account = { email: 'carla@partner.example', name: 'Carla Rossi', timeZone: 'Europe/Rome' };

const baseWorld = createWorld({ seed: 1 }); // one RSA key generation for the whole file
let world: World;

beforeEach(() => {
  world = { ...baseWorld, clock: createClock(Date.parse('2024-05-06T09:00:00Z')), random: createRandom(7), accounts: new Map(), gmail: createGmailState() };
  for (const a of [ANA, BEN, CARLA]) {
    world.accounts.set(a.email, a);
    expect(seedMailbox(world, a, {}).ok).toBe(true);
  }
});

function call(methodId: string, account: Account, options: Partial<Pick<ApiCall, 'params' | 'query' | 'body' | 'media'>> = {}): ApiResult {
  const result = GMAIL_HANDLERS[methodId]!({
    world,
    methodId,
    family: 'gmail',
    params: { userId: 'me', ...options.params },
    query: options.query ?? {},
    body: options.body,
    media: options.media,
    account,
    scopes: [MODIFY],
    now: world.clock.now(),
  });
  const ref = responseRef.get(methodId);
  if (result.status < 300 && ref) expect(checkResponseBody(doc, ref, result.body)).toEqual([]);
  return result;
}

const body = (r: ApiResult) => r.body as any;
const b64url = (text: string | Buffer) => Buffer.from(text).toString('base64url');
const compose = (options: ConstructorParameters<typeof MailComposer>[0]) => new MailComposer(options).compile().build();
const send = (from: Account, raw: string | Buffer, threadId?: string) =>
  call('gmail.users.messages.send', from, { body: { raw: b64url(raw), ...(threadId ? { threadId } : {}) } });
const get = (account: Account, id: string, format = 'full') => body(call('gmail.users.messages.get', account, { params: { id }, query: { format } }));
const rawOf = (account: Account, id: string) => Buffer.from(get(account, id, 'raw').raw, 'base64url').toString();
const inbox = (account: Account, q = '') =>
  (body(call('gmail.users.messages.list', account, { query: { q } })).messages ?? []) as { id: string; threadId: string }[];
const headerOf = (msg: any, name: string) => msg.payload.headers.find((h: any) => h.name.toLowerCase() === name.toLowerCase())?.value;

describe('messages.send', () => {
  test('when Ana sends to Ben with an attachment, then she keeps a SENT copy and Ben gets his own unread copy with the attachment', async () => {
    const raw = await compose({
      from: ANA.email,
      to: `Ben <${BEN.email}>`,
      subject: 'Contract',
      text: 'Signed copy attached.',
      attachments: [{ filename: 'contract.pdf', content: Buffer.from('%PDF contract') }],
    });
    const res = body(send(ANA, raw));
    expect(res).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), threadId: res.id, labelIds: ['SENT'] });

    const [received] = inbox(BEN);
    expect(received!.id).not.toBe(res.id);
    const msg = get(BEN, received!.id);
    expect(msg.labelIds).toEqual(['INBOX', 'UNREAD']);
    expect(headerOf(msg, 'Subject')).toBe('Contract');
    expect(headerOf(msg, 'Delivered-To')).toBe(BEN.email);
    const pdf = msg.payload.parts.find((p: any) => p.filename === 'contract.pdf');
    const att = body(call('gmail.users.messages.attachments.get', BEN, { params: { messageId: received!.id, id: pdf.body.attachmentId } }));
    expect(Buffer.from(att.data, 'base64url').toString()).toBe('%PDF contract');
    expect(inbox(ANA, 'in:sent').map((m) => m.id)).toEqual([res.id]);
  });

  test('when the raw message lacks From, Date and Message-ID, then Gmail adds them (From = the account, Message-ID @mail.gmail.com)', () => {
    const res = body(send(ANA, `To: ${BEN.email}\r\nSubject: hi\r\n\r\nhello`));
    const text = rawOf(ANA, res.id);
    expect(text).toMatch(/^MIME-Version: 1\.0\r\nDate: Mon, 6 May 2024 11:00:\d\d \+0200\r\nMessage-ID: <CA\w+@mail\.gmail\.com>\r\n/);
    expect(text).toContain('From: =?UTF-8?Q?Ana_Garc=C3=ADa?= <ana@acme.example>\r\n');
    const sentAt = Number(get(ANA, res.id).internalDate); // the sandbox clock runs on from where it was set
    expect(sentAt - Date.parse('2024-05-06T09:00:00Z')).toBeGreaterThanOrEqual(0);
    expect(sentAt - Date.parse('2024-05-06T09:00:00Z')).toBeLessThan(60_000);
  });

  test('when the raw message sets its own Message-ID, then Gmail replaces it (rfc822msgid: cannot find it) but keeps custom X- headers', () => {
    const res = body(send(ANA, `To: ${BEN.email}\r\nMessage-ID: <mine-1@acme.example>\r\nX-Hub-Send-Id: 0123abcd\r\nSubject: ids\r\n\r\n.`));
    const meta = body(
      call('gmail.users.messages.get', ANA, { params: { id: res.id }, query: { format: 'metadata', metadataHeaders: ['X-Hub-Send-Id', 'Message-ID'] } }),
    );
    expect(meta.payload.headers.map((h: any) => h.name).sort()).toEqual(['Message-ID', 'X-Hub-Send-Id']);
    expect(headerOf(meta, 'Message-ID')).toMatch(/^<CA\w+@mail\.gmail\.com>$/);
    expect(headerOf(meta, 'X-Hub-Send-Id')).toBe('0123abcd');
    expect(inbox(ANA, 'rfc822msgid:mine-1@acme.example')).toEqual([]);
    expect(headerOf(get(BEN, inbox(BEN)[0]!.id), 'Message-ID')).toBe(headerOf(meta, 'Message-ID')); // what the recipient sees too
  });

  test('when From names another address, then it is replaced; when it is the own address, then its display name is kept', () => {
    const spoofed = body(send(ANA, `From: Boss <boss@acme.example>\r\nTo: ${BEN.email}\r\nSubject: x\r\n\r\n.`));
    expect(headerOf(get(ANA, spoofed.id), 'From')).toBe('Ana García <ana@acme.example>');
    const own = body(send(ANA, `From: "Ana (work)" <ANA@acme.example>\r\nTo: ${BEN.email}\r\nSubject: x\r\n\r\n.`));
    expect(headerOf(get(ANA, own.id), 'From')).toBe('"Ana (work)" <ANA@acme.example>');
  });

  test('when there are Bcc recipients, then they receive it, the sender copy keeps Bcc and delivered copies do not show it', () => {
    const res = body(send(ANA, `To: ${BEN.email}\r\nBcc: ${CARLA.email}, outside@elsewhere.example\r\nSubject: quiet\r\n\r\nbody`));
    expect(rawOf(ANA, res.id)).toContain(`Bcc: ${CARLA.email}`);
    const [carlaCopy] = inbox(CARLA);
    expect(rawOf(CARLA, carlaCopy!.id)).not.toMatch(/^Bcc:/im);
    expect(rawOf(BEN, inbox(BEN)[0]!.id)).not.toMatch(/^Bcc:/im);
    expect(world.gmail.outbound).toHaveLength(1);
    expect(world.gmail.outbound[0]).toMatchObject({ from: ANA.email, recipients: ['outside@elsewhere.example'], messageId: res.id, subject: 'quiet' });
    expect(world.gmail.outbound[0]!.raw).not.toMatch(/^Bcc:/im);
  });

  test('when Ana writes to herself, then one message carries SENT, INBOX and UNREAD', () => {
    expect(body(send(ANA, `To: ${ANA.email}\r\nSubject: note\r\n\r\nremember`)).labelIds).toEqual(['SENT', 'INBOX', 'UNREAD']);
    expect(body(call('gmail.users.getProfile', ANA)).messagesTotal).toBe(1);
  });

  test('when the message is uploaded as media, then it is sent like raw', async () => {
    const media = await compose({ to: BEN.email, subject: 'Uploaded', text: 'via /upload' });
    const res = call('gmail.users.messages.send', ANA, { media, body: undefined });
    expect(res.status).toBe(200);
    expect(headerOf(get(BEN, inbox(BEN)[0]!.id), 'Subject')).toBe('Uploaded');
  });

  test.each([
    ['no recipient', 'Recipient address required', 'Subject: x\r\n\r\nbody'],
    ['a bad To', 'Invalid to header', 'To: human@f\r\nSubject: x\r\n\r\nbody'],
    ['a bad Cc', 'Invalid cc header', `To: ${BEN.email}\r\nCc: not an address\r\n\r\nbody`],
    ['no header at all', 'Invalid raw message', 'just some text'],
  ])('when the message has %s, then 400 invalidArgument %p and nothing is stored', (_what, message, raw) => {
    const res = send(ANA, raw);
    expect(res.status).toBe(400);
    expect(body(res).error).toMatchObject({ code: 400, message, status: 'INVALID_ARGUMENT', errors: [{ reason: 'invalidArgument' }] });
    expect(body(call('gmail.users.getProfile', ANA)).messagesTotal).toBe(0);
  });

  test('when raw is missing or not base64, then 400', () => {
    expect(body(call('gmail.users.messages.send', ANA, { body: {} })).error.message).toBe(
      "'raw' RFC822 payload message string or uploading message via /upload/* URL required",
    );
    expect(body(call('gmail.users.messages.send', ANA, { body: { raw: '***' } })).error.message).toBe('Invalid raw message');
  });

  test('when raw uses standard base64 with padding, then it is accepted too', () => {
    const raw = Buffer.from(`To: ${BEN.email}\r\nSubject: std??>>\r\n\r\n???>>>`).toString('base64');
    expect(call('gmail.users.messages.send', ANA, { body: { raw } }).status).toBe(200);
  });
});

describe('threading', () => {
  /** Ana writes to Ben; Ben answers with the headers a mail client sets. */
  function conversation(replySubject: string, withThreadId: boolean) {
    const first = body(send(ANA, `To: ${BEN.email}\r\nSubject: Budget\r\n\r\nNumbers?`));
    const bensCopy = inbox(BEN)[0]!;
    const originalId = headerOf(get(BEN, bensCopy.id), 'Message-ID');
    const reply = `To: ${ANA.email}\r\nSubject: ${replySubject}\r\nIn-Reply-To: ${originalId}\r\nReferences: ${originalId}\r\n\r\nHere.`;
    const answer = body(send(BEN, reply, withThreadId ? bensCopy.threadId : undefined));
    return { first, bensCopy, answer };
  }

  test('when Ben replies with threadId, References and the same subject, then the reply joins the thread in both mailboxes', () => {
    const { first, bensCopy, answer } = conversation('Re: Budget', true);
    expect(answer.threadId).toBe(bensCopy.threadId);
    const anasCopy = inbox(ANA, 'from:ben')[0]!;
    expect(anasCopy.threadId).toBe(first.threadId);
    const thread = body(call('gmail.users.threads.get', ANA, { params: { id: first.threadId } }));
    expect(thread.messages.map((m: any) => m.id)).toEqual([first.id, anasCopy.id]);
  });

  test('when the reply has no threadId, then the sender starts a new thread but the recipient still threads it by its headers', () => {
    const { first, bensCopy, answer } = conversation('Re: Budget', false);
    expect(answer.threadId).toBe(answer.id);
    expect(answer.threadId).not.toBe(bensCopy.threadId);
    expect(inbox(ANA, 'from:ben')[0]!.threadId).toBe(first.threadId);
  });

  test('when the subject changed, then it is a new thread on both sides despite threadId and References', () => {
    const { first, bensCopy, answer } = conversation('Different topic', true);
    expect(answer.threadId).not.toBe(bensCopy.threadId);
    expect(inbox(ANA, 'from:ben')[0]!.threadId).not.toBe(first.threadId);
  });

  test('when threadId is unknown, then 404; when it is not an id, then 400 Invalid thread_id value', () => {
    expect(send(ANA, `To: ${BEN.email}\r\n\r\nx`, '1234567890abcdef').status).toBe(404);
    expect(body(send(ANA, `To: ${BEN.email}\r\n\r\nx`, 'thread-please')).error.message).toBe('Invalid thread_id value');
  });
});

describe('seeding', () => {
  test('when a seeded message uses thread_with, then it replies to that message and joins its thread', () => {
    const first = seedMailbox(world, ANA, {
      messages: [{ from: `Carla <${CARLA.email}>`, to: [ANA.email], subject: 'Launch', text: 'When?', message_id: 'launch@partner.example' }],
    });
    if (!first.ok) throw new Error(first.message);
    const reply = seedMailbox(world, ANA, {
      messages: [{ from: CARLA.email, to: [ANA.email], subject: 'RE: launch', text: 'Well?', thread_with: first.ids[0]! }],
    });
    if (!reply.ok) throw new Error(reply.message);
    const msg = get(ANA, reply.ids[0]!);
    expect(msg.threadId).toBe(first.ids[0]);
    expect(headerOf(msg, 'In-Reply-To')).toBe('<launch@partner.example>');
  });

  test('when one seeded message is invalid, then none of the batch is stored and the error names it', () => {
    const r = seedMailbox(world, ANA, {
      messages: [
        { from: CARLA.email, to: [ANA.email], subject: 'ok', text: 'fine' },
        { from: CARLA.email, to: [ANA.email], subject: 'Unrelated', text: 'x', thread_with: 'nope@nowhere.example' },
      ],
    });
    expect(r).toEqual({ ok: false, message: expect.stringContaining('messages.1: thread_with') });
    expect(body(call('gmail.users.getProfile', ANA)).messagesTotal).toBe(0);
    expect(seedMailbox(world, ANA, { messages: [{ from: 'not-an-address', to: [ANA.email], subject: 'x' }] }).ok).toBe(false);
  });

  test('when a raw message is seeded, then it is stored as is, dated by its Date header', () => {
    const raw = `From: x@y.example\r\nTo: ${ANA.email}\r\nDate: Tue, 2 Jan 2024 10:00:00 +0100\r\nSubject: raw one\r\n\r\nraw body`;
    const r = seedMailbox(world, ANA, { messages: [{ raw: b64url(raw), labels: ['INBOX', 'starred', 'Receipts'] }] });
    if (!r.ok) throw new Error(r.message);
    const msg = get(ANA, r.ids[0]!, 'raw');
    expect(Buffer.from(msg.raw, 'base64url').toString()).toBe(raw);
    expect(msg.internalDate).toBe(String(Date.parse('2024-01-02T09:00:00Z')));
    expect(msg.labelIds).toEqual(['INBOX', 'STARRED', 'Label_1']);
  });

  test("when the demo world is seeded, then every account seeds and Carla's reply threads with her first message", () => {
    const demo = demoAccounts(new Date('2024-05-08T12:00:00Z'));
    const ana: Account = { email: demo[0]!.email, name: demo[0]!.name!, timeZone: demo[0]!.time_zone! };
    world.accounts.set(ana.email, ana);
    const r = seedMailbox(world, ana, demo[0]!);
    if (!r.ok) throw new Error(r.message);
    const timeline = inboxFor(ana, 'subject:timeline');
    expect(timeline).toHaveLength(2);
    expect(new Set(timeline.map((m) => m.threadId)).size).toBe(1);
  });

  test("when the Gmail state goes through structuredClone (the control API's rollback snapshot), then it keeps working", () => {
    send(ANA, `To: ${BEN.email}\r\nSubject: cloned\r\n\r\nstill here`);
    world.gmail = structuredClone(world.gmail);
    const [msg] = inbox(BEN, 'cloned');
    expect(Buffer.from(get(BEN, msg!.id).payload.body.data, 'base64url').toString()).toBe('still here');
  });
});

const inboxFor = (account: Account, q: string) => inbox(account, q);
