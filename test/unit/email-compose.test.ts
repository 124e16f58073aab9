import { buildRawMessage } from '../../src/providers/google/gmail-compose';
import { htmlToText } from '../../src/workers/html-to-text';
import { baseSubject, replyHeaders, replySubject } from '../../src/tools/email/threading';
import { bodySource, partText } from '../../src/providers/google/gmail-body';
import { headerOf } from '../../src/providers/google/gmail-schemas';
import { gmailRendered, rawHeader } from '../helpers/email';

const base = { cc: [], bcc: [], bodyType: 'text' as const, messageIdDomain: 'acme.example' };
/** The conversion the worker pool runs, here in-process: composing is what these tests look at. */
const inProcess = async (html: string, options: { maxChars: number }) => ({ ...htmlToText({ html, maxChars: options.maxChars }) });
const build = async (mail: Partial<Parameters<typeof buildRawMessage>[0]>) =>
  (await buildRawMessage({ ...base, to: [{ name: '', address: 'ben@acme.example' }], subject: 'Hi', body: 'Hello', ...mail }, inProcess)).toString('latin1');

describe('MIME building (nodemailer MailComposer)', () => {
  it('when the subject and a display name are non-ASCII, then they are RFC 2047 encoded words that Gmail decodes back', async () => {
    const raw = await build({ to: [{ name: 'José Núñez', address: 'jose@x.example' }], subject: 'Café ☕ Prüfung — 会议', body: 'Grüße' });
    expect(rawHeader(raw, 'Subject')).toMatch(/^=\?UTF-8\?[QB]\?/i);
    expect(rawHeader(raw, 'To')).toMatch(/=\?UTF-8\?[QB]\?.+\?= <jose@x\.example>/i);
    expect(raw).toMatch(/^[\x00-\x7f]*$/); // 7-bit clean on the wire
    const m = gmailRendered(raw);
    expect(headerOf(m.payload, 'subject')).toBe('Café ☕ Prüfung — 会议');
    expect(headerOf(m.payload, 'to')).toContain('José Núñez');
    expect(partText(bodySource(m.payload)!.part)!.trim()).toBe('Grüße');
  });

  it('when the body is HTML, then it goes out as multipart/alternative with a text part derived from it', async () => {
    const raw = await build({
      bodyType: 'html',
      body: '<h1>Agenda</h1><p>Hello <b>team</b>,</p><ul><li>one</li><li>two</li></ul><a href="https://x.example/doc">the doc</a>',
    });
    const m = gmailRendered(raw);
    expect(m.payload?.mimeType).toBe('multipart/alternative');
    expect(m.payload?.parts?.map((p) => p.mimeType)).toEqual(['text/plain', 'text/html']);
    const text = partText(m.payload!.parts![0]!)!;
    expect(text).toContain('Hello team');
    expect(text).toMatch(/\* one\n\s*\* two/);
    expect(text).toContain('the doc [https://x.example/doc]');
    expect(text).not.toContain('<');
  });

  it('when bcc recipients are given, then the Bcc header stays in the raw message (Gmail reads and strips it)', async () => {
    const raw = await build({ to: [], bcc: [{ name: '', address: 'hidden@x.example' }] });
    expect(rawHeader(raw, 'Bcc')).toBe('hidden@x.example');
  });

  it('when a reply is built, then In-Reply-To and References carry the ids and no From header or hostname leaks', async () => {
    const raw = await build({ inReplyTo: '<orig@mail.example>', references: ['<root@mail.example>', '<orig@mail.example>'] });
    expect(rawHeader(raw, 'In-Reply-To')).toBe('<orig@mail.example>');
    expect(rawHeader(raw, 'References')).toBe('<root@mail.example> <orig@mail.example>');
    expect(rawHeader(raw, 'From')).toBeUndefined();
    expect(rawHeader(raw, 'Message-ID')).toMatch(/^<[0-9a-f-]{36}@acme\.example>$/);
  });

  it('when a body has long lines and non-ASCII, then it is transfer-encoded and decodes back exactly', async () => {
    const body = `${'ñ'.repeat(300)}\nline two ${'x'.repeat(200)}`;
    const raw = await build({ body });
    expect(raw).toMatch(/Content-Transfer-Encoding: (quoted-printable|base64)/);
    expect(raw.split('\r\n').every((l) => l.length <= 998)).toBe(true);
    expect(partText(bodySource(gmailRendered(raw).payload)!.part)!.trimEnd()).toBe(body);
  });
});

describe('threading headers', () => {
  it('when the original has References, then References = those + its Message-ID and In-Reply-To = its Message-ID', () => {
    expect(replyHeaders({ messageId: '<c@x>', references: '<a@x> <b@x>', inReplyTo: '<b@x>' })).toEqual({
      inReplyTo: '<c@x>',
      references: ['<a@x>', '<b@x>', '<c@x>'],
    });
  });

  it('when the original has no References but an In-Reply-To, then that parent starts References (RFC 5322 §3.6.4)', () => {
    expect(replyHeaders({ messageId: '<c@x>', inReplyTo: '<b@x>' })).toEqual({ inReplyTo: '<c@x>', references: ['<b@x>', '<c@x>'] });
  });

  it('when the original has no Message-ID, then there is nothing to thread on', () => {
    expect(replyHeaders({ references: '<a@x>' })).toBeUndefined();
  });

  it('when a conversation is very long, then References keeps the first and the most recent ids', () => {
    const refs = Array.from({ length: 40 }, (_, i) => `<m${i}@x>`).join(' ');
    const out = replyHeaders({ messageId: '<last@x>', references: refs })!;
    expect(out.references).toHaveLength(20);
    expect(out.references[0]).toBe('<m0@x>');
    expect(out.references.at(-1)).toBe('<last@x>');
  });

  it('when the subject is derived, then one "Re: " is added and prefixes compare equal', () => {
    expect(replySubject('Q1 Proposal')).toBe('Re: Q1 Proposal');
    expect(replySubject('RE: Q1 Proposal')).toBe('RE: Q1 Proposal');
    expect(baseSubject('Re: AW: Fwd:  Q1   proposal')).toBe('q1 proposal');
  });
});

describe('html → text', () => {
  it('when HTML has styles, scripts, images and entities, then only the readable text remains', () => {
    const html =
      '<html><head><style>p{color:red}</style><script>alert(1)</script></head><body><p>Tom &amp; Jerry&nbsp;&lt;3</p><img src="x.png" alt="logo"><br>Bye</body></html>';
    expect(htmlToText({ html, maxChars: 1000 })).toEqual({ text: 'Tom & Jerry\u00a0<3\n\nBye', truncated: false, degraded: false });
  });
});
