/// <reference path="../libmime.d.ts" />
import libmime from 'libmime';

/**
 * Header blocks are handled as "binary" strings (latin1: one char per byte) so that slicing a message never
 * shifts byte offsets; text is only decoded (UTF-8, encoded words) when a value is read.
 */

/** One header field exactly as written: folded continuation lines included, no trailing CRLF. */
export interface RawField {
  name: string;
  raw: string;
}

export interface HeaderSplit {
  fields: RawField[];
  /** Everything after the blank line that ends the header block ('' when there is none). */
  body: string;
}

const FIELD_START = /^([!-9;-~]+)[ \t]*:/;

/**
 * Splits an entity into header fields and body. Like Gmail's own parser it is lenient: a stray line that is
 * neither a field nor a continuation is skipped rather than rejected.
 */
export function splitHeaders(bin: string): HeaderSplit {
  const fields: RawField[] = [];
  let pos = 0;
  while (pos < bin.length) {
    const eol = bin.indexOf('\n', pos);
    const next = eol === -1 ? bin.length : eol + 1;
    const line = bin.slice(pos, eol === -1 ? bin.length : eol).replace(/\r$/, '');
    if (line === '') return { fields, body: bin.slice(next) };
    const last = fields[fields.length - 1];
    if (/^[ \t]/.test(line)) {
      if (last) last.raw += `\r\n${line}`;
    } else {
      const m = FIELD_START.exec(line);
      if (m) fields.push({ name: m[1]!, raw: line });
    }
    pos = next;
  }
  return { fields, body: '' };
}

export function joinHeaders(fields: readonly RawField[], body: string): string {
  return `${fields.map((f) => f.raw).join('\r\n')}\r\n\r\n${body}`;
}

/** The unfolded value, raw bytes read as UTF-8 (8-bit headers happen), encoded words left as written. */
export function rawValue(field: RawField): string {
  const unfolded = field.raw.slice(field.raw.indexOf(':') + 1).replace(/\r?\n(?=[ \t])/g, '');
  return Buffer.from(unfolded, 'latin1').toString('utf8').trim();
}

/** The value as Gmail's `headers[]` shows it: unfolded and with RFC 2047 encoded words decoded. */
export function decodedValue(field: RawField): string {
  return libmime.decodeWords(rawValue(field));
}

export function findField(fields: readonly RawField[], name: string): RawField | undefined {
  const lower = name.toLowerCase();
  return fields.find((f) => f.name.toLowerCase() === lower);
}

/** Every value of a header that may repeat (To, Cc, Received ...), raw. */
export function rawValues(fields: readonly RawField[], name: string): string[] {
  const lower = name.toLowerCase();
  return fields.filter((f) => f.name.toLowerCase() === lower).map(rawValue);
}

/** Gmail stores mail with CRLF line ends whatever the client sent (SMTP is CRLF). */
export function toCrlf(bin: string): string {
  return bin.replace(/\r?\n|\r/g, '\r\n');
}

export function parseStructured(value: string): { value: string; params: Record<string, string> } {
  const parsed = libmime.parseHeaderValue(value);
  return { value: String(parsed.value || '').trim(), params: parsed.params };
}

export { libmime };
