/// <reference path="../libmime.d.ts" />
import charset from 'libmime/lib/charset';
import { type MimeNode, isAttachment, walkParts } from './parse';

/** A text part's content as a string, per its charset parameter (US-ASCII is read as its superset UTF-8). */
export function partText(node: MimeNode): string {
  const cs = node.params.charset?.trim() || 'utf-8';
  return charset.decode(Buffer.from(node.body, 'latin1'), cs);
}

const NAMED_ENTITIES: Record<string, string> = {
  nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", copy: '©', reg: '®', hellip: '…', mdash: '—',
  ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', euro: '€', zwnj: '', zwj: '',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return NAMED_ENTITIES[e.toLowerCase()] ?? m;
  });
}

const BLOCK_TAG = /^\/?(p|div|br|li|ul|ol|tr|td|th|table|h[1-6]|blockquote|hr|section|article|header|footer)\b/i;

/** Visible text of an HTML body: invisible elements dropped, block tags become spaces, entities decoded. */
export function htmlToText(html: string): string {
  const stripped = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<([^>]*)>/g, (_m, inner: string) => (BLOCK_TAG.test(inner.trim()) ? ' ' : ''));
  return decodeEntities(stripped);
}

/** The readable text parts of a message (attachments excluded): plain ones, then HTML ones as text. */
export function bodyTexts(root: MimeNode): { plain: string[]; html: string[] } {
  const plain: string[] = [];
  const html: string[] = [];
  walkParts(root, (node) => {
    if (node.children.length || isAttachment(node)) return;
    if (node.mimeType === 'text/plain') plain.push(partText(node));
    else if (node.mimeType === 'text/html') html.push(htmlToText(partText(node)));
  });
  return { plain, html };
}

const SNIPPET_LENGTH = 200;

/** HTML-escapes as Gmail's snippet does: `it's` comes back as `it&#39;s`. */
export function escapeSnippet(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Gmail's snippet: the start of the body text, whitespace collapsed, ~200 characters, HTML-escaped. */
export function snippetOf(root: MimeNode): string {
  const { plain, html } = bodyTexts(root);
  const text = (plain[0] ?? html[0] ?? '').replace(/\s+/g, ' ').trim();
  // Cut on code points, not UTF-16 units, so an emoji is never split in half.
  return escapeSnippet(Array.from(text).slice(0, SNIPPET_LENGTH).join('').trimEnd());
}
