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
/** Elements whose content is never visible text. */
const INVISIBLE = new Set(['script', 'style', 'head', 'title']);

const tagName = (inner: string) => /^[a-z][a-z0-9]{0,15}/i.exec(inner)?.[0].toLowerCase() ?? '';

/**
 * Visible text of an HTML body: comments and invisible elements dropped, block tags become spaces, entities
 * decoded. One forward pass with indexOf — hostile mail (thousands of unclosed `<script` or `<!--`, a `<` with
 * no `>`) cannot make it quadratic, as the regexes it replaces could: a search that found no closing tag is
 * remembered, so it is never repeated from a later position.
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  const unclosed = new Set<string>();
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    out.push(html.slice(i, lt));
    if (html.startsWith('<!--', lt) && !unclosed.has('--')) {
      const end = html.indexOf('-->', lt + 4);
      if (end !== -1) {
        i = end + 3;
        continue;
      }
      unclosed.add('--');
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt === -1) {
      i = lt;
      break;
    }
    const inner = html.slice(lt + 1, gt);
    const name = tagName(inner);
    i = gt + 1;
    if (INVISIBLE.has(name) && !unclosed.has(name)) {
      const closing = new RegExp(`</${name}\\s*>`, 'gi');
      closing.lastIndex = i;
      const found = closing.exec(html);
      if (found) {
        out.push(' ');
        i = closing.lastIndex;
        continue;
      }
      unclosed.add(name);
    }
    out.push(BLOCK_TAG.test(inner.trim()) ? ' ' : '');
  }
  out.push(html.slice(i));
  return decodeEntities(out.join(''));
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

/**
 * Gmail's snippet: the body text with whitespace collapsed, HTML-escaped, then cut to the limit without
 * splitting a word or an entity. Real responses show the limit applies to the escaped text ("I&#39;m ..."
 * counts 5 for the apostrophe) and that a cut word is dropped whole ("Tim Har" → "Tim").
 */
export function snippetOf(root: MimeNode): string {
  const { plain, html } = bodyTexts(root);
  const escaped = escapeSnippet((plain[0] ?? html[0] ?? '').replace(/\s+/g, ' ').trim());
  if (escaped.length <= SNIPPET_LENGTH) return escaped;
  let cut = escaped.slice(0, SNIPPET_LENGTH);
  // A single endless "word" (a URL, a token) is cut hard rather than dropped entirely.
  if (/[\p{L}\p{N}]/u.test(escaped[SNIPPET_LENGTH]!)) cut = cut.replace(/[\p{L}\p{N}]+$/u, '') || cut;
  return cut.replace(/&[#\w]*$/, '').replace(/[\uD800-\uDBFF]$/, '').trimEnd();
}
