/**
 * The visible text of an HTML body, as Gmail's snippets and search see it: comments and invisible elements
 * (script, style, head, …) dropped, block elements as line breaks, entities decoded, blank runs collapsed.
 *
 * The sandbox's own code on purpose, not the Hub's HTML worker: the emulator must never agree with the Hub under
 * test by sharing its logic (a bug in one would then be invisible in both), and the package imports nothing of
 * the Hub. Hostile mail reaches it too (thousands of unclosed `<script` or `<!--`, a `<` with no `>`), so it is
 * one forward pass with indexOf and no backtracking: a closing tag or comment end searched for once and not
 * found is remembered and never searched for again.
 */

/** Elements whose content no reader sees. */
const INVISIBLE = new Set(['script', 'style', 'head', 'title', 'template', 'noscript', 'xmp']);

/** Elements that begin a new line. */
const BREAKS = new Set(
  'p div br li ul ol tr table tbody thead tfoot h1 h2 h3 h4 h5 h6 blockquote hr section article header footer pre dl dt dd address center form'.split(' '),
);

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  euro: '€',
  zwnj: '',
  zwj: '',
};

/** Bounded repetitions and a required `;`: linear however many `&` a sender writes. */
const ENTITY = /&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,8});/g;

function decode(text: string): string {
  return text.replace(ENTITY, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const hex = ref[1] === 'x' || ref[1] === 'X';
    const code = Number.parseInt(ref.slice(hex ? 2 : 1), hex ? 16 : 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : whole;
  });
}

/** The lowercased tag name starting at `at` (letters and digits; the names above are short, so at most 16). */
function tagName(html: string, at: number): string {
  let end = at;
  while (end < html.length && end - at < 16 && /[0-9A-Za-z]/.test(html[end]!)) end++;
  return html.slice(at, end).toLowerCase();
}

export function visibleText(html: string): string {
  const out: string[] = [];
  /** Closers ('-->', or an element name) already searched for and absent from the rest of the input. */
  const absent = new Set<string>();
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open === -1) {
      out.push(html.slice(at));
      break;
    }
    out.push(html.slice(at, open));
    if (html.startsWith('<!--', open) && !absent.has('-->')) {
      const close = html.indexOf('-->', open + 4);
      if (close !== -1) {
        at = close + 3;
        continue;
      }
      absent.add('-->');
    }
    const gt = html.indexOf('>', open + 1);
    if (gt === -1) {
      // A `<` that never closes is text, as a browser shows it.
      out.push(html.slice(open));
      break;
    }
    const closing = html[open + 1] === '/';
    const name = tagName(html, open + (closing ? 2 : 1));
    at = gt + 1;
    if (!closing && INVISIBLE.has(name) && !absent.has(name)) {
      const end = new RegExp(`</${name}[\\s/>]`, 'gi');
      end.lastIndex = at;
      if (end.exec(html)) {
        const after = html.indexOf('>', end.lastIndex - 1);
        at = after === -1 ? html.length : after + 1;
        continue;
      }
      absent.add(name);
    }
    if (BREAKS.has(name)) out.push('\n');
  }
  return decode(out.join(''))
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ ?\n[ \n]*/g, (run) => (run.split('\n').length > 2 ? '\n\n' : '\n'))
    .trim();
}
