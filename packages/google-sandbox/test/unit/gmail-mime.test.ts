import MailComposer from 'nodemailer/lib/mail-composer';
import { formatAddress, parseAddressList } from '../../src/gmail/mime/addresses';
import { composeMessage } from '../../src/gmail/mime/compose';
import { splitHeaders } from '../../src/gmail/mime/headers';
import { findPart, isAttachment, parseMime } from '../../src/gmail/mime/parse';
import { htmlToText, partText, snippetOf } from '../../src/gmail/mime/text';

const build = (options: ConstructorParameters<typeof MailComposer>[0]) =>
  new MailComposer(options)
    .compile()
    .build()
    .then((b) => b.toString('latin1'));

const header = (node: { headers: { name: string; value: string }[] }, name: string) => node.headers.find((h) => h.name.toLowerCase() === name)?.value;

describe('MIME parsing', () => {
  it('when a message nests multipart/alternative inside multipart/mixed with an attachment, then the tree, part types and decoded bodies come out', async () => {
    const raw = await build({
      from: 'Ana <ana@acme.example>',
      to: 'ben@acme.example',
      subject: 'Deck',
      text: 'Plain body é',
      html: '<p>HTML body</p>',
      attachments: [{ filename: 'deck.pdf', content: Buffer.from('%PDF-1.4 bytes'), contentType: 'application/pdf' }],
    });
    const root = parseMime(raw);
    expect(root.mimeType).toBe('multipart/mixed');
    expect(root.children.map((c) => c.mimeType)).toEqual(['multipart/alternative', 'application/pdf']);
    const [alt, pdf] = root.children as [typeof root, typeof root];
    expect(alt.children.map((c) => c.mimeType)).toEqual(['text/plain', 'text/html']);
    expect(partText(alt.children[0]!)).toBe('Plain body é');
    expect(pdf.filename).toBe('deck.pdf');
    expect(Buffer.from(pdf.body, 'latin1').toString()).toBe('%PDF-1.4 bytes');
    expect(isAttachment(pdf)).toBe(true);
    expect(isAttachment(alt.children[0]!)).toBe(false);
    expect(findPart(root, '0.1')?.mimeType).toBe('text/html');
  });

  it('when headers carry RFC 2047 encoded words and folded lines, then values are unfolded and decoded', () => {
    const raw = [
      'From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <jm@example.de>',
      'Subject: =?UTF-8?B?UsOpc3Vtw6k=?=',
      '  =?UTF-8?Q?_for_review?=',
      'To: a@example.com',
      '',
      'hi',
    ].join('\r\n');
    const root = parseMime(raw);
    expect(header(root, 'subject')).toBe('Résumé for review');
    expect(header(root, 'from')).toBe('Jürgen Müller <jm@example.de>');
  });

  it('when a body is quoted-printable in ISO-8859-1 with soft line breaks, then the text decodes to the right characters', () => {
    const raw =
      'Content-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nCaf=E9 au lait, a very long line that was wrapped =\r\nby the encoder.\r\n';
    expect(partText(parseMime(raw))).toBe('Café au lait, a very long line that was wrapped by the encoder.\r\n');
  });

  it('when an attachment name uses RFC 2231 continuations, then the filename is decoded', () => {
    const raw = [
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--b1',
      'Content-Type: application/octet-stream',
      "Content-Disposition: attachment; filename*0*=utf-8''r%C3%A9sum; filename*1*=%C3%A9.pdf",
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('data').toString('base64'),
      '--b1--',
      '',
    ].join('\r\n');
    const root = parseMime(raw);
    expect(root.children[1]!.filename).toBe('résumé.pdf');
    expect(partText(root.children[0]!)).toBe('see attached');
  });

  it('when lines end in bare LF and the closing delimiter is missing, then parts are still found', () => {
    const raw =
      'Content-Type: multipart/alternative; boundary=xyz\n\npreamble\n--xyz\nContent-Type: text/plain\n\none\n--xyz\nContent-Type: text/html\n\n<b>two</b>\n';
    const root = parseMime(raw);
    expect(root.children.map((c) => partText(c))).toEqual(['one', '<b>two</b>\n']);
  });

  it('when a multipart has no boundary parameter, then it is one opaque leaf rather than an error', () => {
    const root = parseMime('Content-Type: multipart/mixed\r\n\r\nbody');
    expect(root.children).toEqual([]);
    expect(root.body).toBe('body');
  });

  it('when there is no Content-Type, then the part is text/plain', () => {
    expect(parseMime('Subject: x\r\n\r\nhello').mimeType).toBe('text/plain');
  });

  it('when header lines are malformed, then they are skipped and the rest is kept', () => {
    const { fields, body } = splitHeaders('From: a@b.example\r\nthis is not a header\r\nTo: c@d.example\r\n\r\nbody');
    expect(fields.map((f) => f.name)).toEqual(['From', 'To']);
    expect(body).toBe('body');
  });
});

describe('snippets', () => {
  it('when the text has quotes, ampersands and runs of whitespace, then the snippet collapses and HTML-escapes them as Gmail does', () => {
    const root = parseMime('Content-Type: text/plain\r\n\r\nIt\'s  "fine" &\r\n\r\n  <ok>');
    expect(snippetOf(root)).toBe('It&#39;s &quot;fine&quot; &amp; &lt;ok&gt;');
  });

  it('when the body is long, then the snippet stops at 200 escaped characters without splitting a word', () => {
    const words = `${'word '.repeat(39)}Harrison continues`; // "Harrison" straddles character 200
    const snippet = snippetOf(parseMime(`Content-Type: text/plain\r\n\r\n${words}`));
    expect(snippet).toBe('word '.repeat(39).trimEnd());
  });

  it('when the cut falls inside an escaped character, then the entity is dropped rather than split', () => {
    const text = `${'a'.repeat(197)} 'quoted'`; // "&#39;" would start at 198
    expect(snippetOf(parseMime(`Content-Type: text/plain\r\n\r\n${text}`))).toBe('a'.repeat(197));
  });

  it('when only HTML is present, then the snippet is its visible text', () => {
    const root = parseMime(
      'Content-Type: text/html\r\n\r\n<html><head><style>p{color:red}</style></head><body><p>Hello&nbsp;<b>World</b></p><p>Next</p></body></html>',
    );
    expect(snippetOf(root)).toBe('Hello World Next');
  });

  it('when HTML has entities and comments, then htmlToText decodes and drops them', () => {
    expect(htmlToText('<!-- x -->a&amp;b &#8364; &#x41;').trim()).toBe('a&b € A');
  });
});

describe('addresses and composing', () => {
  it('when address lists contain names, groups and junk, then valid ones parse and junk is flagged', () => {
    expect(parseAddressList('"Doe, J" <j@x.example>, undisclosed-recipients:;')).toEqual({
      addresses: [{ name: 'Doe, J', address: 'j@x.example' }],
      invalid: false,
    });
    expect(parseAddressList('human@f').invalid).toBe(true);
    expect(parseAddressList('not an address').invalid).toBe(true);
  });

  it('when names need quoting or encoding, then formatAddress does so', () => {
    expect(formatAddress({ name: 'Ana García', address: 'a@x.example' })).toBe('=?UTF-8?Q?Ana_Garc=C3=ADa?= <a@x.example>');
    expect(formatAddress({ name: 'Doe, J', address: 'j@x.example' })).toBe('"Doe, J" <j@x.example>');
    expect(formatAddress({ name: '', address: 'j@x.example' })).toBe('j@x.example');
  });

  it('when a seed message is composed with text, html and an attachment, then parsing it gives back the same content', () => {
    let n = 0;
    const raw = composeMessage({
      headers: [
        ['From', 'a@x.example'],
        ['Subject', 'Réunion demain'],
      ],
      text: 'Bonjour à tous',
      html: '<p>Bonjour</p>',
      attachments: [{ filename: 'notes été.txt', contentType: 'text/plain', content: Buffer.from('notes') }],
      boundary: () => `b${n++}`,
    });
    const root = parseMime(raw);
    expect(header(root, 'subject')).toBe('Réunion demain');
    expect(root.mimeType).toBe('multipart/mixed');
    expect(partText(root.children[0]!.children[0]!)).toBe('Bonjour à tous');
    expect(root.children[1]!.filename).toBe('notes été.txt');
    expect(isAttachment(root.children[1]!)).toBe(true);
  });
});
