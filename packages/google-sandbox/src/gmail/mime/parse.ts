/// <reference path="../libmime.d.ts" />
import * as libqp from 'libqp';
import { type RawField, decodedValue, findField, libmime, parseStructured, rawValue, splitHeaders } from './headers';

/** A parsed MIME entity: the tree that becomes a Gmail MessagePart. */
export interface MimeNode {
  fields: RawField[];
  /** `{name, value}` pairs as Gmail returns them (decoded, in message order). */
  headers: { name: string; value: string }[];
  /** Lowercased `type/subtype`. */
  mimeType: string;
  params: Record<string, string>;
  /** Lowercased Content-Disposition value ('' when absent). */
  disposition: string;
  /** Decoded filename ('' when the part has none, as Gmail reports it). */
  filename: string;
  /**
   * Transfer-decoded content of a leaf (empty for multiparts), as a binary string (one char per byte).
   * Strings rather than Buffers because the control API snapshots state with structuredClone, which turns
   * Buffers into plain Uint8Arrays.
   */
  body: string;
  children: MimeNode[];
}

/** Deeper nesting is treated as an opaque leaf: real mail never nests this far, hostile mail might. */
const MAX_DEPTH = 30;

/** Parses a whole message, given as a binary string. Never fails: Gmail shows whatever it can make of mail. */
export function parseMime(raw: string): MimeNode {
  return parseEntity(raw, 'text/plain', 0);
}

function parseEntity(bin: string, defaultType: string, depth: number): MimeNode {
  const { fields, body } = splitHeaders(bin);
  const ctField = findField(fields, 'content-type');
  const ct = ctField ? parseStructured(rawValue(ctField)) : { value: '', params: {} };
  const mimeType = /^[\w.+-]+\/[\w.+-]+$/.test(ct.value) ? ct.value.toLowerCase() : defaultType;
  const cdField = findField(fields, 'content-disposition');
  const cd = cdField ? parseStructured(rawValue(cdField)) : { value: '', params: {} };
  const cteField = findField(fields, 'content-transfer-encoding');
  const cte = cteField ? rawValue(cteField).toLowerCase() : '';
  // Many mailers still put RFC 2047 words inside filename="..."; Gmail decodes those too.
  const filename = libmime.decodeWords(cd.params.filename ?? ct.params.name ?? '').trim();
  const node: MimeNode = {
    fields,
    headers: fields.map((f) => ({ name: f.name, value: decodedValue(f) })),
    mimeType,
    params: ct.params,
    disposition: cd.value.toLowerCase(),
    filename,
    body: '',
    children: [],
  };
  const boundary = ct.params.boundary;
  if (mimeType.startsWith('multipart/') && boundary && depth < MAX_DEPTH) {
    const childType = mimeType === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
    const parts = splitMultipart(body, boundary);
    if (parts) {
      node.children = parts.map((p) => parseEntity(p, childType, depth + 1));
      return node;
    }
  }
  node.body = decodeTransfer(body, cte);
  return node;
}

/** The body parts between `--boundary` delimiter lines; null when there is no delimiter at all. */
export function splitMultipart(body: string, boundary: string): string[] | null {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let partStart = -1;
  let pos = 0;
  while (pos <= body.length) {
    const eol = body.indexOf('\n', pos);
    const line = body.slice(pos, eol === -1 ? body.length : eol).replace(/\r$/, '');
    if (line.startsWith(delimiter) && /^(--)?[ \t]*$/.test(line.slice(delimiter.length))) {
      if (partStart >= 0) parts.push(body.slice(partStart, Math.max(partStart, endBeforeLineBreak(body, pos))));
      if (line.slice(delimiter.length).startsWith('--')) return parts;
      partStart = eol === -1 ? body.length : eol + 1;
    }
    if (eol === -1) break;
    pos = eol + 1;
  }
  // No closing delimiter: keep what came after the last one (truncated mail is still shown by Gmail).
  if (partStart >= 0) parts.push(body.slice(partStart));
  return parts.length ? parts : null;
}

/** The CRLF before a delimiter belongs to the delimiter, not to the part (RFC 2046 §5.1.1). */
function endBeforeLineBreak(body: string, pos: number): number {
  let end = pos;
  if (body[end - 1] === '\n') end--;
  if (body[end - 1] === '\r') end--;
  return end;
}

function decodeTransfer(bin: string, cte: string): string {
  if (cte === 'base64') return Buffer.from(bin.replace(/[^A-Za-z0-9+/]/g, ''), 'base64').toString('latin1');
  if (cte === 'quoted-printable') return libqp.decode(bin).toString('latin1');
  return bin; // 7bit, 8bit, binary, or unknown: bytes as they are
}

/** Gmail serves parts with a filename, `attachment` disposition, or non-text content by attachmentId only. */
export function isAttachment(node: MimeNode): boolean {
  return node.children.length === 0 && (node.filename !== '' || node.disposition === 'attachment' || !node.mimeType.startsWith('text/'));
}

/** Depth-first walk with Gmail partIds ('' root, '0', '1', '0.1', ...). */
export function walkParts(root: MimeNode, visit: (node: MimeNode, partId: string) => void): void {
  const go = (node: MimeNode, partId: string) => {
    visit(node, partId);
    node.children.forEach((child, i) => {
      go(child, partId === '' ? String(i) : `${partId}.${i}`);
    });
  };
  go(root, '');
}

export function findPart(root: MimeNode, partId: string): MimeNode | undefined {
  let found: MimeNode | undefined;
  walkParts(root, (node, id) => {
    if (id === partId) found = node;
  });
  return found;
}
