import { headerAddresses, headerValueProblem, parseRecipient } from '../../src/tools/email/addresses';
import { bodySource, charsetOf, decodeCharset, hasAttachments, listAttachments, partText, truncate } from '../../src/providers/google/gmail-body';
import { mapBounded } from '../../src/tools/email/concurrency';
import { fail, hubError, ok } from '../../src/core/errors';
import { htmlToText } from '../../src/workers/html-to-text';
import { snippetText } from '../../src/providers/google/gmail-map';
import { gmailRendered, rfc822 } from '../helpers/email';

const textOf = (raw: string) => {
  const source = bodySource(gmailRendered(raw).payload)!;
  const content = partText(source.part)!;
  return source.kind === 'html' ? htmlToText({ html: content, maxChars: 100_000 }).text : content;
};

describe('body decoding (charset after Gmail undid the transfer encoding)', () => {
  it('when a part is ISO-8859-1 quoted-printable, then its bytes decode with that charset', () => {
    const raw = rfc822(
      'Subject: x',
      'Content-Type: text/plain; charset="ISO-8859-1"',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Caf=E9 cr=E8me, a=F1o =3D ok=',
      ' soft',
    );
    expect(textOf(raw)).toBe('Café crème, año = ok soft');
  });

  it('when a part is UTF-8 base64, then it decodes to the same text', () => {
    const b64 = Buffer.from('Grüße aus Köln — 你好 🎉').toString('base64');
    const raw = rfc822('Subject: x', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64', '', b64.slice(0, 20), b64.slice(20));
    expect(textOf(raw)).toBe('Grüße aus Köln — 你好 🎉');
  });

  it('when a part is 8bit windows-1252 with smart quotes, then they come out right', () => {
    const raw = Buffer.concat([
      Buffer.from(rfc822('Subject: x', 'Content-Type: text/plain; charset=windows-1252', 'Content-Transfer-Encoding: 8bit', '', '')),
      Buffer.from([0x93, 0x68, 0x69, 0x94, 0x20, 0x80]),
    ]);
    expect(textOf(raw.toString('latin1'))).toBe('“hi” €');
  });

  it('when the charset is unknown or absent, then UTF-8 / US-ASCII rules apply without failing', () => {
    expect(decodeCharset(Buffer.from('héllo'), 'x-no-such-charset')).toBe('héllo');
    expect(charsetOf({ headers: [{ name: 'Content-Type', value: 'text/plain' }] })).toBe('us-ascii');
    expect(charsetOf({ headers: [{ name: 'content-type', value: 'text/plain; format=flowed; charset="UTF-8"' }] })).toBe('utf-8');
  });

  it('when bytes are windows-1252 (or labelled ISO-8859-1/US-ASCII), then €, dashes and curly quotes survive on every Node release', () => {
    // 0x80 €, 0x93/0x94 curly double quotes, 0x96 en dash, 0x97 em dash, 0x85 ellipsis: what latin1 decoding loses.
    const bytes = Buffer.from([0x80, 0x20, 0x93, 0x68, 0x69, 0x94, 0x20, 0x96, 0x20, 0x97, 0x85]);
    for (const label of ['windows-1252', 'Windows-1252', 'cp1252', 'iso-8859-1', 'ISO_8859-1', 'latin1', 'us-ascii']) {
      expect(decodeCharset(bytes, label)).toBe('€ “hi” – —…');
    }
  });

  it('when bytes are ISO-8859-15, Shift_JIS or GB18030, then each decodes in its own charset', () => {
    expect(decodeCharset(Buffer.from([0xa4, 0x20, 0xa6, 0xbd]), 'ISO-8859-15')).toBe('€ Šœ');
    // 日本語 in Shift_JIS; ｶﾅ as half-width katakana (single bytes 0xB6 0xC5).
    expect(decodeCharset(Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0xb6, 0xc5]), 'Shift_JIS')).toBe('日本語ｶﾅ');
    // 你好 (two-byte GBK), € (0x80 in GB18030/GBK), and U+20000 as a GB18030 four-byte sequence.
    expect(decodeCharset(Buffer.from([0xc4, 0xe3, 0xba, 0xc3, 0x80, 0x95, 0x32, 0x82, 0x36]), 'GB18030')).toBe('你好€𠀀');
    expect(decodeCharset(Buffer.from([0x1b, 0x24, 0x42, 0x46, 0x7c, 0x4b, 0x5c, 0x1b, 0x28, 0x42]), 'ISO-2022-JP')).toBe('日本');
  });

  it('when the charset label is hostile or names no charset, then the bytes decode as UTF-8 without throwing', () => {
    const hostile = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'x'.repeat(10_000), 'utf-8\u0000', '', ' ', 'base64', 'hex', '"utf-8"', 'utf 8'];
    for (const label of hostile) expect(decodeCharset(Buffer.from('héllo €'), label)).toBe('héllo €');
    expect(decodeCharset(Buffer.from([0xff, 0x41]), 'utf-8')).toBe('\ufffdA');
  });

  it('when mail is HTML only, then the body is text derived from the HTML', () => {
    const raw = rfc822('Subject: x', 'Content-Type: text/html; charset=utf-8', '', '<div>Hola <i>María</i></div><p>Second&nbsp;para</p>');
    expect(textOf(Buffer.from(raw).toString('latin1'))).toBe('Hola María\n\nSecond\u00a0para');
  });

  it('when multipart/mixed nests related/alternative with an inline image and attachments, then plain text is the body and attachments are listed', () => {
    const raw = rfc822(
      'Subject: nested',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      '--outer',
      'Content-Type: multipart/related; boundary="rel"',
      '',
      '--rel',
      'Content-Type: multipart/alternative; boundary="alt"',
      '',
      '--alt',
      'Content-Type: text/plain; charset=ISO-8859-1',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Ol=E1, see the deck.',
      '--alt',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Olá, see the <b>deck</b>.</p><img src="cid:logo">',
      '--alt--',
      '--rel',
      'Content-Type: image/png',
      'Content-ID: <logo>',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('PNGDATA').toString('base64'),
      '--rel--',
      '--outer',
      'Content-Type: application/pdf; name="deck.pdf"',
      'Content-Disposition: attachment; filename="deck.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('%PDF-1.4 0123456789').toString('base64'),
      '--outer',
      'Content-Type: text/plain; charset=utf-8; name="notes.txt"',
      'Content-Disposition: attachment; filename="=?UTF-8?Q?n=C3=B6tes.txt?="',
      '',
      'not the body',
      '--outer--',
    );
    const m = gmailRendered(raw);
    expect(textOf(raw)).toBe('Olá, see the deck.');
    expect(hasAttachments(m.payload)).toBe(true);
    const list = listAttachments(m.payload);
    expect(list.map(({ attachment_id: _id, ...a }) => a)).toEqual([
      { filename: '', size: 7, mime_type: 'image/png' },
      { filename: 'deck.pdf', size: 19, mime_type: 'application/pdf' },
      { filename: 'nötes.txt', size: 12, mime_type: 'text/plain' },
    ]);
    expect(list.every((a) => a.attachment_id.length > 0)).toBe(true);
  });

  it('when a message has no attachment, then has_attachments is false even for multipart/mixed', () => {
    const raw = rfc822('Subject: x', 'Content-Type: multipart/mixed; boundary="b"', '', '--b', 'Content-Type: text/plain', '', 'just text', '--b--');
    expect(hasAttachments(gmailRendered(raw).payload)).toBe(false);
  });

  it('when text is longer than the limit, then it is cut without splitting a surrogate pair', () => {
    expect(truncate('abcdef', 10)).toEqual({ text: 'abcdef', truncated: false });
    expect(truncate('ab🎉cd', 3)).toEqual({ text: 'ab', truncated: true });
    expect(truncate('abcdef', 4)).toEqual({ text: 'abcd', truncated: true });
  });
});

describe('addresses', () => {
  it('when a recipient is a bare or named address, then it parses; lists, groups and junk are refused', () => {
    expect(parseRecipient('ana@acme.example')).toEqual({ ok: true, mailbox: { name: '', address: 'ana@acme.example' } });
    expect(parseRecipient('Ana García <ana@acme.example>')).toEqual({ ok: true, mailbox: { name: 'Ana García', address: 'ana@acme.example' } });
    expect(parseRecipient('a@x.example, b@x.example').ok).toBe(false);
    expect(parseRecipient('team: a@x.example;').ok).toBe(false);
    expect(parseRecipient('not an address').ok).toBe(false);
  });

  it('when a value carries CR/LF or control characters, then it is refused as header injection', () => {
    expect(parseRecipient('ana@acme.example\r\nBcc: evil@x.example')).toEqual({ ok: false, message: 'must not contain line breaks (CR/LF)' });
    expect(headerValueProblem('Hi\nBcc: evil@x.example')).toMatch(/line breaks/);
    expect(headerValueProblem('Hi\u0000')).toMatch(/control/);
    expect(headerValueProblem('Olá — fine\ttab')).toBeUndefined();
  });

  it('when Gmail returns decoded address headers, then the bare addresses come out', () => {
    expect(headerAddresses('"García, Ana" <ana@acme.example>, ben@acme.example')).toEqual(['ana@acme.example', 'ben@acme.example']);
    expect(headerAddresses('García, Ana <ana@acme.example>')).toEqual(['ana@acme.example']);
    expect(headerAddresses(undefined)).toEqual([]);
  });
});

describe('bounded concurrency', () => {
  it('when work runs, then no more than the limit are in flight and results keep their order', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 5 * (8 - n)));
      inFlight--;
      return ok(n * 10);
    });
    expect(out).toEqual({ ok: true, value: [10, 20, 30, 40, 50, 60, 70] });
    expect(peak).toBe(3);
  });

  it('when one item fails, then no new work starts and the failure is returned', async () => {
    const started: number[] = [];
    const out = await mapBounded([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      return n === 2 ? fail(hubError('EXTERNAL_API_ERROR', 'x')) : ok(n);
    });
    expect(out.ok).toBe(false);
    expect(started.length).toBeLessThanOrEqual(3);
  });

  it('when one item fails, then the signal handed to the work still running aborts (its answer is decided)', async () => {
    let slowSignal: AbortSignal | undefined;
    const out = await mapBounded([1, 2], 2, async (n, signal) => {
      if (n === 2) return fail(hubError('EXTERNAL_API_ERROR', 'x'));
      slowSignal = signal;
      await new Promise((r) => setTimeout(r, 20));
      return ok(signal.aborted ? 'stopped early' : 'finished');
    });
    expect(out.ok).toBe(false);
    expect(slowSignal?.aborted).toBe(true);
  });
});

describe('snippets', () => {
  it("when Gmail's snippet is HTML-escaped, then the plain text comes out", () => {
    expect(snippetText('Here&#39;s &quot;the&quot; plan &amp; more &lt;3 &#x1F389; &bogus; &#0;')).toBe('Here\'s "the" plan & more <3 🎉 &bogus; &#0;');
    expect(snippetText(undefined)).toBe('');
  });
});
