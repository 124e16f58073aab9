import { convert } from 'html-to-text';

/**
 * HTML to plain text, with html-to-text (v10): block elements (p, div, br, li, headings, table rows) become line
 * breaks, list items get bullets, links render as `text [href]` (the href alone when it equals the text),
 * images and everything in <head>, <style> and <script> are dropped, entities are decoded, runs of blank lines collapse to one, and lines are not
 * hard-wrapped (an agent reads the text; a mail client re-flows it). Used both for the text/plain alternative
 * of HTML mail the Hub sends and for reading HTML-only mail.
 */
const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
};

export function htmlToText(html: string): string {
  // More than one blank line in a row carries no meaning for a reader.
  return convert(html, OPTIONS).replace(/\n{3,}/g, '\n\n').trim();
}
