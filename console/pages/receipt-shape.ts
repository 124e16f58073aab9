import { h } from '../dom.js';

/**
 * A receipt's payload in words. With HUB_AUDIT_PAYLOADS=redacted the Hub keeps the compact shape of inputs and
 * results (src/audit/shape.ts): `"string(N) #H"` for a string (its length and a keyed hash that equal values
 * share), `"string(N)"` for message contents, `{"$array": N, "$each": …}` for an array with the hashes of its ids
 * in `$ids`/`$hashes`; numbers and booleans as they were. `full` receipts hold values, shown as they are.
 */

const STRING = /^string\((\d+)\)(?: #([0-9a-f]{8,}))?$/;
const ITEM_TYPES: Record<string, string> = { string: 'text', number: 'number', boolean: 'yes/no', null: 'null' };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hashes = (hs: unknown) => (Array.isArray(hs) ? hs.map((x) => `#${String(x)}`).join(', ') : '');

/** One leaf in words: a redacted string, an item type, a credential removed, or a value. */
function leaf(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v);
  const m = STRING.exec(v);
  if (m) return `text, ${m[1]} characters${m[2] ? ` · #${m[2]}` : ' (content: length only)'}`;
  if (v in ITEM_TYPES) return ITEM_TYPES[v]!;
  if (v === '‹removed›') return 'removed (a credential)';
  return JSON.stringify(v);
}

/** An item shape inside an array summary: `[S]` is a list of S. */
function itemNode(v: unknown): Node | string {
  if (Array.isArray(v)) return v.length === 0 ? 'empty list' : h('span', {}, 'list of ', ...v.flatMap((s, i) => [i > 0 ? ' or ' : '', itemNode(s)]));
  return isRecord(v) ? fields(v) : leaf(v);
}

function arrayNode(v: Record<string, unknown>): HTMLElement {
  const parts: (Node | string)[] = [`${String(v.$array)} item${v.$array === 1 ? '' : 's'}`];
  const rows: HTMLElement[] = [];
  if ('$each' in v) rows.push(h('li', {}, 'each: ', itemNode(v.$each)));
  if (Array.isArray(v.$kinds)) v.$kinds.forEach((k, i) => rows.push(h('li', {}, `kind ${i + 1}: `, itemNode(k))));
  if (typeof v.$other === 'number') rows.push(h('li', {}, `${v.$other} of other kinds`));
  if (typeof v.$cut === 'number') rows.push(h('li', {}, `${v.$cut} not described (too large)`));
  if (Array.isArray(v.$hashes)) rows.push(h('li', { class: 'mono' }, `hashes: ${hashes(v.$hashes)}${v.$hashes_more ? ', …' : ''}`));
  if (isRecord(v.$ids))
    for (const [k, hs] of Object.entries(v.$ids)) rows.push(h('li', { class: 'mono' }, `${k} hashes: ${hashes(hs)}${v.$ids_more ? ', …' : ''}`));
  return h('span', {}, ...parts, rows.length > 0 ? h('ul', { class: 'shape' }, rows) : null);
}

function fields(v: Record<string, unknown>): HTMLElement {
  const rows = Object.entries(v).map(([k, x]) =>
    k === '$more_keys' ? h('li', { class: 'muted' }, `${String(x)} more keys not kept`) : h('li', {}, h('span', { class: 'mono' }, k), ': ', node(x)),
  );
  return h('ul', { class: 'shape' }, rows);
}

function node(v: unknown): Node | string {
  if (isRecord(v)) return '$array' in v ? arrayNode(v) : fields(v);
  if (Array.isArray(v))
    return v.length === 0
      ? 'empty list'
      : h(
          'ul',
          { class: 'shape' },
          v.map((x) => h('li', {}, node(x))),
        );
  return leaf(v);
}

/** A payload section of the receipt: what it kept, in the receipt's payload mode. */
export function payloadSection(title: string, payload: unknown, mode: string): HTMLElement[] {
  const body =
    payload === null || payload === undefined
      ? h('p', { class: 'muted' }, mode === 'none' ? 'Not kept (payloads: none).' : 'None.')
      : h('div', { class: 'payload' }, node(payload));
  return [h('h3', {}, title), body];
}

/** An error message a redacted receipt kept as its length and hash only. */
export const messageText = (message: unknown): string | null => {
  if (typeof message !== 'string') return null;
  const m = STRING.exec(message);
  return m ? `(redacted: ${m[1]} characters)` : message;
};
