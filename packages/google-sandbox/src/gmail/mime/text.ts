/// <reference path="../libmime.d.ts" />
import charset from 'libmime/lib/charset';
import { visibleText } from './html';
import { type MimeNode, isAttachment, walkParts } from './parse';

/** A text part's content as a string, per its charset parameter (US-ASCII is read as its superset UTF-8). */
export function partText(node: MimeNode): string {
  const cs = node.params.charset?.trim() || 'utf-8';
  return charset.decode(Buffer.from(node.body, 'latin1'), cs);
}

/** Visible text of an HTML body, for snippets and search (the sandbox's own linear stripper, ./html.ts). */
export const htmlToText = (html: string): string => visibleText(html);

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
  return cut
    .replace(/&[#\w]*$/, '')
    .replace(/[\uD800-\uDBFF]$/, '')
    .trimEnd();
}
