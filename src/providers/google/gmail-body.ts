import iconv from 'iconv-lite';
import { type GmailPart, headerOf } from './gmail-schemas';

/**
 * Reading a Gmail message's MIME tree (format=full). Gmail has already undone each part's transfer encoding
 * (quoted-printable, base64): `body.data` is the part's bytes, base64url-encoded, in the part's own charset.
 * So a text body is: base64url → bytes → text in the charset its Content-Type names.
 */

/** Deeper trees are not walked further: real mail never nests this far, hostile mail might. */
const MAX_DEPTH = 32;

export function walkParts(root: GmailPart | null | undefined, visit: (part: GmailPart) => void): void {
  const go = (part: GmailPart, depth: number) => {
    visit(part);
    if (depth < MAX_DEPTH) for (const child of part.parts ?? []) go(child, depth + 1);
  };
  if (root) go(root, 0);
}

const mimeTypeOf = (part: GmailPart) => (part.mimeType ?? '').toLowerCase();
const isLeaf = (part: GmailPart) => !(part.parts ?? []).length && !mimeTypeOf(part).startsWith('multipart/');
const dispositionOf = (part: GmailPart) => (headerOf(part, 'content-disposition') ?? '').trim().toLowerCase();
const isBodyType = (part: GmailPart) => mimeTypeOf(part) === 'text/plain' || mimeTypeOf(part) === 'text/html';

/** A part that is a body, not an attachment: text/plain or text/html without a filename or attachment disposition. */
function isBodyPart(part: GmailPart): boolean {
  return isLeaf(part) && isBodyType(part) && !part.filename && !dispositionOf(part).startsWith('attachment');
}

/**
 * An attachment: a leaf with a filename or served by attachment id. A text body that Gmail chose to serve by id
 * (very large ones) is still the body, not an attachment.
 */
export function isAttachmentPart(part: GmailPart): boolean {
  if (!isLeaf(part)) return false;
  if (part.filename) return true;
  return !!part.body?.attachmentId && !isBodyPart(part);
}

export const hasAttachments = (root: GmailPart | null | undefined): boolean => {
  let found = false;
  walkParts(root, (part) => {
    found ||= isAttachmentPart(part);
  });
  return found;
};

export interface AttachmentInfo {
  filename: string;
  size: number;
  mime_type: string;
  attachment_id: string;
}

export function listAttachments(root: GmailPart | null | undefined): AttachmentInfo[] {
  const out: AttachmentInfo[] = [];
  walkParts(root, (part) => {
    if (!isAttachmentPart(part)) return;
    out.push({
      filename: part.filename ?? '',
      size: part.body?.size ?? 0,
      mime_type: mimeTypeOf(part) || 'application/octet-stream',
      attachment_id: part.body?.attachmentId ?? '',
    });
  });
  return out;
}

/** The `charset` parameter of a part's Content-Type, lowercased; RFC 2045 says US-ASCII when absent. */
export function charsetOf(part: GmailPart): string {
  const contentType = headerOf(part, 'content-type') ?? '';
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(contentType);
  return (match?.[1] ?? match?.[2] ?? 'us-ascii').trim().toLowerCase();
}

/**
 * Labels WHATWG's Encoding standard maps to windows-1252 (https://encoding.spec.whatwg.org/#names-and-labels):
 * mail labelled ISO-8859-1 or US-ASCII routinely carries windows-1252 bytes (curly quotes, €, dashes), and
 * browsers and mail clients read it as windows-1252 — its superset.
 */
const WINDOWS_1252_LABELS = new Set([
  'ansi_x3.4-1968',
  'ascii',
  'cp1252',
  'cp819',
  'csisolatin1',
  'ibm819',
  'iso-8859-1',
  'iso-ir-100',
  'iso8859-1',
  'iso88591',
  'iso_8859-1',
  'iso_8859-1:1987',
  'l1',
  'latin1',
  'us-ascii',
  'windows-1252',
  'x-cp1252',
]);

/** What a charset label may look like (RFC 2978 names are ≤ 40 characters of this alphabet); anything else is noise. */
const CHARSET_LABEL = /^[a-z0-9][a-z0-9._:()+-]{0,63}$/;

/** Node's binary-to-text encodings, which iconv-lite also answers to: no mail charset, whatever a header says. */
const NOT_CHARSETS = new Set(['base64', 'base64url', 'hex']);

function decoderFor(label: string): ((bytes: Uint8Array) => string) | undefined {
  if (!CHARSET_LABEL.test(label) || NOT_CHARSETS.has(label)) return undefined;
  const name = WINDOWS_1252_LABELS.has(label) ? 'windows-1252' : label;
  if (iconv.encodingExists(name)) return (bytes) => iconv.decode(bytes, name);
  // Labels iconv-lite lacks (ISO-2022-JP…): the platform's WHATWG decoders, when this Node has them.
  try {
    const decoder = new TextDecoder(name);
    return (bytes) => decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Bytes in a named charset to text, with iconv-lite: UTF-8, ISO-8859-*, windows-125x, KOI8, Shift_JIS, EUC-JP,
 * GB18030/GBK, Big5, EUC-KR… — not Node's TextDecoder, which in several Node releases (20.18.3+, 22.13–22.18,
 * 24.0–24.6; nodejs/node#59515, #60888) decodes windows-1252 as latin1, so €, dashes and curly quotes vanish.
 * ISO-8859-1 and US-ASCII decode as windows-1252 (above). An unknown or malformed label falls back to UTF-8;
 * malformed bytes become U+FFFD, never an error.
 */
export function decodeCharset(bytes: Uint8Array, charset: string): string {
  const decode = decoderFor(charset.trim().toLowerCase()) ?? decoderFor('utf-8')!;
  return decode(bytes);
}

/** A text part's content; undefined when Gmail served it by attachment id instead of inline data. */
export function partText(part: GmailPart): string | undefined {
  const data = part.body?.data;
  if (data == null) return part.body?.attachmentId ? undefined : '';
  return decodeCharset(Buffer.from(data, 'base64url'), charsetOf(part)).replace(/\r\n/g, '\n');
}

export interface BodySource {
  part: GmailPart;
  kind: 'plain' | 'html';
}

/**
 * Where the body comes from: the first text/plain body part with content, else the first text/html one
 * (depth-first, so multipart/alternative inside multipart/mixed or multipart/related is found).
 */
export function bodySource(root: GmailPart | null | undefined): BodySource | undefined {
  let plain: GmailPart | undefined;
  let html: GmailPart | undefined;
  walkParts(root, (part) => {
    if (!isBodyPart(part)) return;
    const empty = !part.body?.attachmentId && !(part.body?.size ?? 0) && !part.body?.data;
    if (empty) return;
    if (mimeTypeOf(part) === 'text/plain') plain ??= part;
    else html ??= part;
  });
  if (plain) return { part: plain, kind: 'plain' };
  if (html) return { part: html, kind: 'html' };
  return undefined;
}

/** Cuts text longer than `max` characters, never in the middle of a surrogate pair. */
export function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), truncated: true };
}
