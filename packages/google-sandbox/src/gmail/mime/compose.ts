import * as b64 from 'nodemailer/lib/base64';
import { buildHeaderValue, encodeWords, foldLines } from 'nodemailer/lib/mime-funcs';
import * as qp from 'nodemailer/lib/qp';
import { toCrlf } from './headers';

/**
 * Builds RFC 2822 messages for seeded mail. Nodemailer's MailComposer is stream-based (async only) and seeding
 * must be synchronous, so this assembles the same structure from nodemailer's synchronous encoders:
 * text + html → multipart/alternative, attachments → multipart/mixed around it, as Gmail's composer does.
 */

export interface ComposeAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface ComposeInput {
  /** Header fields in order, values already formatted (addresses, dates); non-ASCII text is encoded here. */
  headers: [string, string][];
  text?: string | undefined;
  html?: string | undefined;
  attachments: ComposeAttachment[];
  /** Source of MIME boundaries (the sandbox's seeded PRNG, so output is reproducible). */
  boundary: () => string;
}

interface Entity {
  headers: [string, string][];
  body: string;
}

/** The message as a binary string (it is all 7-bit: non-ASCII text is encoded). */
export function composeMessage(input: ComposeInput): string {
  const alternatives: Entity[] = [];
  if (input.text !== undefined || input.html === undefined) alternatives.push(textEntity('text/plain', input.text ?? ''));
  if (input.html !== undefined) alternatives.push(textEntity('text/html', input.html));
  let entity = alternatives.length > 1 ? multipart('multipart/alternative', alternatives, input.boundary()) : alternatives[0]!;
  if (input.attachments.length) {
    entity = multipart('multipart/mixed', [entity, ...input.attachments.map(attachmentEntity)], input.boundary());
  }
  const headers = [
    ...input.headers.map(([k, v]): [string, string] => [k, encodeWords(v, 'Q', 52)]),
    ['MIME-Version', '1.0'] as [string, string],
    ...entity.headers,
  ];
  return Buffer.from(serialize({ headers, body: entity.body }), 'utf8').toString('latin1');
}

function textEntity(mimeType: string, text: string): Entity {
  const crlf = toCrlf(text);
  // 7bit when it can be (short ASCII lines), quoted-printable otherwise: what Gmail's composer emits.
  const plain = /^[\x00-\x7f]*$/.test(crlf) && !crlf.split('\r\n').some((l) => l.length > 76);
  const headers: [string, string][] = [['Content-Type', `${mimeType}; charset="UTF-8"`]];
  if (plain) return { headers, body: crlf };
  headers.push(['Content-Transfer-Encoding', 'quoted-printable']);
  return { headers, body: toCrlf(qp.wrap(qp.encode(Buffer.from(crlf, 'utf8')), 76)) };
}

function attachmentEntity(a: ComposeAttachment): Entity {
  const quotedName = /^[\x20-\x7e]*$/.test(a.filename) ? `"${a.filename.replace(/["\\]/g, '\\$&')}"` : `"${encodeWords(a.filename, 'Q', 52, true)}"`;
  return {
    headers: [
      ['Content-Type', `${a.contentType}; name=${quotedName}`],
      ['Content-Disposition', buildHeaderValue({ value: 'attachment', params: { filename: a.filename } })],
      ['Content-Transfer-Encoding', 'base64'],
    ],
    body: toCrlf(b64.wrap(b64.encode(a.content), 76)),
  };
}

function multipart(mimeType: string, parts: Entity[], boundary: string): Entity {
  const body = `${parts.map((p) => `--${boundary}\r\n${serialize(p)}\r\n`).join('')}--${boundary}--\r\n`;
  return { headers: [['Content-Type', `${mimeType}; boundary="${boundary}"`]], body };
}

function serialize(entity: Entity): string {
  const head = entity.headers.map(([k, v]) => foldLines(`${k}: ${v}`, 76).replace(/\r?\n/g, '\r\n')).join('\r\n');
  return `${head}\r\n\r\n${entity.body}`;
}
