import { convert } from 'html-to-text';
import { Tokenizer } from 'htmlparser2';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/**
 * HTML to plain text, written to run in a worker thread (src/workers/pool.ts): mail HTML is untrusted, and
 * html-to-text's cost grows with nesting (htmlparser2's open-element stack is an array it unshifts: quadratic;
 * html-to-text's walk is recursive: 5,000 nested <div> overflow the stack). So:
 *  1. `nestingDepth` measures nesting with htmlparser2's own tokenizer (linear), stopping at the limit;
 *  2. mail nested deeper than MAX_NESTING is not parsed at all: it gets `stripTags` text, flagged degraded;
 *  3. otherwise html-to-text converts it (block elements → line breaks, list bullets, links `text [href]`,
 *     images and <head>/<style>/<script> dropped, entities decoded, no hard wrapping), with `limits.maxDepth`
 *     as a second guard.
 * This file is the worker's entry and must load as it is: under jest Node runs it from source (type
 * stripping), so it imports packages only and uses no TypeScript-only syntax beyond types.
 */

/** Real mail (tables in tables, Outlook's wrappers) stays far below this; hostile mail goes far above. */
export const MAX_NESTING = 256;

export interface HtmlTask {
  html: string;
  /** Longest text wanted: conversion output beyond it is cut (`truncated`). */
  maxChars: number;
}

export interface HtmlResult {
  text: string;
  truncated: boolean;
  /** The text is the tag-stripped fallback, not html-to-text's layout. */
  degraded: boolean;
}

/** Marks where html-to-text stopped descending; an input carrying it by chance is merely flagged degraded. */
const DEPTH_MARK = '\u0000\u2026depth\u2026\u0000';

const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
  limits: { maxDepth: MAX_NESTING * 2, ellipsis: DEPTH_MARK },
};

// htmlparser2's rules for what never nests (void elements) and which open tags close the current one: a subset
// of its table, so the depth measured here is never below the depth its parser builds.
const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const CLOSES_P = new Set(['p']);
const IMPLIED_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['dd', new Set(['dt', 'dd'])],
  ['dt', new Set(['dt', 'dd'])],
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div', 'table', 'ul', 'ol', 'blockquote', 'pre', 'section', 'article', 'header', 'footer', 'form'].map(
    (name): [string, Set<string>] => [name, CLOSES_P],
  ),
]);

const noop = () => {};

/** Thrown by the tokenizer's callback to stop the scan once the answer is known. */
class DepthExceeded extends Error {}

/**
 * How deeply the elements of `html` nest, as htmlparser2 would build them — or the first depth above `limit`
 * (the scan stops there). Linear: htmlparser2's tokenizer, and a stack whose every push is popped at most once.
 */
export function nestingDepth(html: string, limit: number): number {
  const stack: string[] = [];
  const openCount = new Map<string, number>();
  let max = 0;
  let name = '';
  const push = (tag: string) => {
    stack.push(tag);
    openCount.set(tag, (openCount.get(tag) ?? 0) + 1);
  };
  const pop = () => {
    const tag = stack.pop()!;
    openCount.set(tag, openCount.get(tag)! - 1);
    return tag;
  };
  const tokenizer = new Tokenizer(
    { xmlMode: false, decodeEntities: false },
    {
      onopentagname(start, end) {
        name = html.slice(start, end).toLowerCase();
        const closes = IMPLIED_CLOSE.get(name);
        while (closes && stack.length > 0 && closes.has(stack[stack.length - 1]!)) pop();
        if (VOID.has(name)) return;
        push(name);
        if (stack.length > max) max = stack.length;
        if (max > limit) throw new DepthExceeded();
      },
      onclosetag(start, end) {
        const tag = html.slice(start, end).toLowerCase();
        if (!VOID.has(tag) && (openCount.get(tag) ?? 0) > 0) while (pop() !== tag);
      },
      onattribdata: noop,
      onattribentity: noop,
      onattribend: noop,
      onattribname: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onopentagend: noop,
      onprocessinginstruction: noop,
      onselfclosingtag: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  try {
    tokenizer.write(html);
    tokenizer.end();
  } catch (err) {
    if (!(err instanceof DepthExceeded)) throw err;
  }
  return max;
}

// ---------------------------------------------------------------------------------------------------------------

/** Elements whose content is never text a reader sees. */
const HIDDEN = new Set(['script', 'style', 'head', 'title', 'template', 'noscript', 'xmp']);
/** Elements that start a new line in the stripped text. */
const BLOCK = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'tr',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'hr',
  'section',
  'article',
  'header',
  'footer',
  'pre',
  'dl',
  'dt',
  'dd',
  'address',
  'center',
  'form',
]);
const ENTITIES: Record<string, string> = {
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
const ENTITY = /&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi;

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (entity, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : entity;
  });
}

const isNameChar = (code: number) => (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);

/** The tag name at `from`, lowercased (only the names the sets above hold matter, so at most 16 characters). */
const tagNameAt = (html: string, from: number) => {
  let end = from;
  while (end < html.length && end - from < 16 && isNameChar(html.charCodeAt(end))) end++;
  return html.slice(from, end).toLowerCase();
};

/**
 * The fallback: text with the tags taken out — hidden elements and comments dropped, block elements as line
 * breaks, common entities decoded, blank runs collapsed — reading only until about `maxChars` of text exist. One
 * forward pass with indexOf and no backtracking (a search for a closing tag that is not there is remembered
 * and never repeated), so it is cheap enough to run anywhere, the event loop included.
 */
export function stripTags(html: string, maxChars: number): { text: string; truncated: boolean } {
  const parts: string[] = [];
  let length = 0;
  const missing = new Set<string>();
  let i = 0;
  const emit = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  // Collapsing whitespace shrinks the text: read twice the wanted length before calling it enough.
  const enough = maxChars * 2 + 1;
  while (i < html.length && length < enough) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      emit(html.slice(i));
      break;
    }
    emit(html.slice(i, lt));
    if (html.startsWith('<!--', lt) && !missing.has('-->')) {
      const end = html.indexOf('-->', lt + 4);
      if (end !== -1) {
        i = end + 3;
        continue;
      }
      missing.add('-->');
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt === -1) {
      emit(html.slice(lt));
      break;
    }
    const closing = html[lt + 1] === '/';
    const name = tagNameAt(html, lt + (closing ? 2 : 1));
    i = gt + 1;
    if (!closing && HIDDEN.has(name) && !missing.has(name)) {
      const end = new RegExp(`</${name}[\\s/>]`, 'gi');
      end.lastIndex = i;
      if (end.exec(html)) {
        const after = html.indexOf('>', end.lastIndex - 1);
        i = after === -1 ? html.length : after + 1;
        continue;
      }
      missing.add(name);
    }
    if (BLOCK.has(name)) emit('\n');
  }
  const text = decodeEntities(parts.join(''))
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ ?\n[ \n]*/g, (run) => (run.split('\n').length > 2 ? '\n\n' : '\n'))
    .trim();
  return { text: cut(text, maxChars), truncated: text.length > maxChars || length >= enough };
}

/** Cut at `max` characters, never between the halves of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

// ---------------------------------------------------------------------------------------------------------------

/** One message's HTML as text: html-to-text when the markup is sane, the stripped fallback when it is not. */
export function htmlToText(task: HtmlTask): HtmlResult {
  if (nestingDepth(task.html, MAX_NESTING) > MAX_NESTING) return { ...stripTags(task.html, task.maxChars), degraded: true };
  const converted = convert(task.html, OPTIONS);
  if (converted.includes(DEPTH_MARK)) return { ...stripTags(task.html, task.maxChars), degraded: true };
  // More than one blank line in a row carries no meaning for a reader.
  const text = converted.replace(/\n{3,}/g, '\n\n').trim();
  return { text: cut(text, task.maxChars), truncated: text.length > task.maxChars, degraded: false };
}

// The worker side of the pool's protocol: say ready once loaded, then answer each task with its id.
if (!isMainThread && parentPort && (workerData as { role?: unknown } | null)?.role === 'html-to-text') {
  const port = parentPort;
  port.on('message', (message: { id: number; input: HtmlTask }) => {
    try {
      port.postMessage({ id: message.id, ok: true, value: htmlToText(message.input) });
    } catch (err) {
      port.postMessage({ id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  });
  port.postMessage({ ready: true });
}
