/**
 * The compact shape a `redacted` receipt keeps of a payload: what the call looked like, not what it said.
 *
 * - an object keeps its keys (at most MAX_KEYS, the rest counted in `"$more_keys"`), each with the shape of its value;
 * - a string becomes `"string(N) #H"`: its length and a 64-bit keyed hash, so equal values match across receipts
 *   without being readable; message contents (subject, body, snippet…) become `"string(N)"`, length only, and so
 *   do the strings a HashRule leaves out (a result's strings that are neither ids nor a repeat of the inputs);
 * - numbers, booleans and null are kept; values under credential keys become `‹removed›`;
 * - an array becomes `{"$array": N, "$each": S}`: its count and the shape its items share (item shapes name
 *   types only: `"string"`, `"number"`, nested arrays as `[S]`), or `"$kinds"` (up to 3 distinct shapes) and
 *   `"$other"` (items of yet other shapes). Only the strings whose equality a replay needs — ids, calendars,
 *   addresses — keep hashes inside an array: `"$ids": {"key": [H…]}` (distinct, at most MAX_IDS a key), or
 *   `"$hashes"` for an array of such strings itself.
 *
 * The walk visits at most `maxNodes` values (beyond it `"$cut"`), and a shape larger than MAX_SHAPE_CHARS once
 * serialised is replaced by a marker: a receipt's payloads have a fixed bound whatever the caller sent.
 */
export type Shaper = (value: unknown, maxNodes: number, hashed?: HashRule) => unknown;

/**
 * Which strings outside arrays keep their hash (`string(N) #H`) rather than their length alone (`string(N)`); every
 * one when no rule is given (inputs, error details: equality across calls is what a replay matches on).
 */
export type HashRule = (s: string, key: string) => boolean;

/** Keys kept per object; a wider object keeps the first ones and the count of the rest. */
export const MAX_KEYS = 64;
/** Key names longer than this are cut (a key is the caller's text too). */
const MAX_KEY_CHARS = 64;
/** The largest compact payload kept, serialised. */
export const MAX_SHAPE_CHARS = 4_096;
/** Distinct hashes kept per id key of an array; keys with hashes kept per array. */
export const MAX_IDS = 32;
const MAX_ID_KEYS = 8;
/** Distinct item shapes listed per array. */
const MAX_KINDS = 3;
const MAX_DEPTH = 32;

export const CREDENTIAL_KEY = /token|secret|passw|authori[sz]ation|api[_-]?key|credential|cookie|signature/i;
export const CONTENT_KEY = /^(subject|body|body_text|body_html|html|text|snippet|raw|content|description|summary|title|notes)$/i;
/** Strings whose equality a replay follows from call to call: ids, calendars, addresses. */
export const ID_KEY = /(^|_)ids?$|[a-z]Ids?$|^(calendars?|emails?|address(es)?|to|cc|bcc|from|reply_to|attendees?|organizer|labels?)$/i;
export const REMOVED = '‹removed›';

const keyName = (k: string) => (k.length > MAX_KEY_CHARS ? `${k.slice(0, MAX_KEY_CHARS)}…` : k);

export function compactShaper(hash: (s: string) => string): Shaper {
  let budget = 0;
  /** The hashes of one top-level array's id strings, by key. */
  type Ids = Map<string, Set<string>>;

  const noteId = (ids: Ids, key: string, s: string): void => {
    let set = ids.get(key);
    if (set === undefined) {
      if (ids.size >= MAX_ID_KEYS) return;
      ids.set(key, (set = new Set()));
    }
    if (set.size < MAX_IDS + 1) set.add(hash(s)); // one over: says "more"
  };

  /** An item's shape: types only; id strings noted in `ids`. */
  const itemShape = (v: unknown, key: string, ids: Ids, depth: number): unknown => {
    if (--budget < 0) return '$cut';
    if (typeof v === 'string') {
      if (ID_KEY.test(key) && !CONTENT_KEY.test(key)) noteId(ids, key, v);
      return 'string';
    }
    if (v === null) return 'null';
    if (typeof v !== 'object') return typeof v === 'number' || typeof v === 'boolean' ? typeof v : 'null';
    if (depth >= MAX_DEPTH) return '$cut: too deep';
    if (Array.isArray(v)) {
      const kinds = new Map<string, unknown>();
      for (const item of v) {
        if (budget < 0) break;
        const s = itemShape(item, key, ids, depth + 1);
        const k = JSON.stringify(s);
        if (kinds.size < MAX_KINDS && !kinds.has(k)) kinds.set(k, s);
      }
      return [...kinds.values()];
    }
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (++n > MAX_KEYS || budget < 0) break;
      out[keyName(k)] = CREDENTIAL_KEY.test(k) ? REMOVED : itemShape((v as Record<string, unknown>)[k], k, ids, depth + 1);
    }
    if (n > MAX_KEYS) out.$more_keys = Object.keys(v).length - MAX_KEYS;
    return out;
  };

  const arrayShape = (v: readonly unknown[], key: string, depth: number): unknown => {
    if (v.length === 0) return [];
    const ids: Ids = new Map();
    const kinds = new Map<string, { shape: unknown; n: number }>();
    let other = 0;
    let walked = 0;
    for (const item of v) {
      const s = itemShape(item, key, ids, depth + 1);
      if (budget < 0) break; // an item the budget ran out in is not described (counted in $cut)
      walked++;
      const k = JSON.stringify(s);
      const kind = kinds.get(k);
      if (kind) kind.n++;
      else if (kinds.size < MAX_KINDS) kinds.set(k, { shape: s, n: 1 });
      else other++;
    }
    const out: Record<string, unknown> = { $array: v.length };
    const listed = [...kinds.values()];
    if (listed.length === 1) out.$each = listed[0]!.shape;
    else out.$kinds = listed.map((k) => k.shape);
    if (other > 0) out.$other = other;
    if (walked < v.length) out.$cut = v.length - walked;
    const own = ids.get(key);
    if (own && typeof v[0] === 'string') {
      out.$hashes = [...own].slice(0, MAX_IDS);
      if (own.size > MAX_IDS) out.$hashes_more = true;
      ids.delete(key);
    }
    if (ids.size > 0) {
      const byKey: Record<string, string[]> = {};
      for (const [k, set] of ids) byKey[keyName(k)] = [...set].slice(0, MAX_IDS);
      out.$ids = byKey;
      if ([...ids.values()].some((set) => set.size > MAX_IDS)) out.$ids_more = true;
    }
    return out;
  };

  let hashed: HashRule | undefined;
  const walk = (v: unknown, key: string, content: boolean, depth: number): unknown => {
    if (--budget < 0) return '$cut';
    if (typeof v === 'string') return content || (hashed !== undefined && !hashed(v, key)) ? `string(${v.length})` : `string(${v.length}) #${hash(v)}`;
    if (v === null || typeof v !== 'object') return typeof v === 'number' || typeof v === 'boolean' ? v : null;
    if (depth >= MAX_DEPTH) return '$cut: too deep';
    if (Array.isArray(v)) return arrayShape(v, key, depth);
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (++n > MAX_KEYS || budget < 0) break;
      out[keyName(k)] = CREDENTIAL_KEY.test(k) ? REMOVED : walk((v as Record<string, unknown>)[k], k, content || CONTENT_KEY.test(k), depth + 1);
    }
    if (n > MAX_KEYS) out.$more_keys = Object.keys(v).length - MAX_KEYS;
    return out;
  };

  return (value, maxNodes, rule) => {
    budget = maxNodes;
    hashed = rule;
    const shape = walk(value, '', false, 0);
    const size = JSON.stringify(shape).length;
    return size > MAX_SHAPE_CHARS ? { $cut: `shape of ${size} characters exceeds ${MAX_SHAPE_CHARS}` } : shape;
  };
}
