import type { KqlNode, KqlOp } from './kql';

/**
 * Whether a message matches a parsed KQL query. Text is matched as a full-text index matches it (KQL syntax
 * reference, "Using words…", "Using phrases…"): a word matches a whole term of the field, never part of one — "You
 * can use just a part of a word, from the beginning of the word, by using the wildcard operator (*)" — and a phrase
 * matches its words next to each other. Addresses are searched as Graph lists them, "specified as an SMTP
 * address, display name, or alias" (search-query-parameter). Dates are UTC: "All date/time values must be
 * specified according to the UTC" in YYYY-MM-DD, YYYY-MM-DDThh:mm:ss, …Z or …ssfrZ (KQL syntax reference), and
 * Graph's own examples write `received:07/23/2018`; a range `A..B` runs "from the beginning of day A to the end of
 * day B". Properties without a value for a message never match.
 */

export interface Searchable {
  from: string;
  to: string;
  cc: string;
  bcc: string;
  subject: string;
  body: string;
  attachmentNames: string;
  hasAttachments: boolean;
  importance: string;
  received: number;
  sent: number;
  size: number;
}

const DAY = 86_400_000;
const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** The value's words are consecutive words of the field; a trailing `*` lets the last one be a prefix. */
function textMatches(field: string, value: string): boolean {
  const prefix = value.trimEnd().endsWith('*');
  const wanted = words(value);
  if (wanted.length === 0) return false;
  const have = words(field);
  const last = wanted.length - 1;
  for (let start = 0; start + wanted.length <= have.length; start++) {
    let k = 0;
    while (k < wanted.length && (have[start + k] === wanted[k] || (prefix && k === last && have[start + k]!.startsWith(wanted[k]!)))) k++;
    if (k === wanted.length) return true;
  }
  return false;
}

/** A KQL date value as the span it names: a whole UTC day, or one instant. */
function span(value: string): [number, number] | undefined {
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  const iso = us ? `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}` : value;
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) {
    const start = Date.parse(`${iso}T00:00:00Z`);
    return Number.isNaN(start) ? undefined : [start, start + DAY];
  }
  const instant = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,7})?Z?$/.exec(iso);
  if (!instant) return undefined;
  const at = Date.parse(`${instant[1]}${(instant[2] ?? '').slice(0, 4)}Z`);
  return Number.isNaN(at) ? undefined : [at, at + 1];
}

function compare(at: number, op: KqlOp, value: string, range?: [string, string]): boolean {
  if (range) {
    const a = span(range[0]);
    const b = span(range[1]);
    return !!a && !!b && at >= a[0] && at < b[1];
  }
  const s = span(value);
  if (!s) return false;
  switch (op) {
    case ':':
    case '=':
      return at >= s[0] && at < s[1];
    case '<>':
      return at < s[0] || at >= s[1];
    case '<':
      return at < s[0];
    case '<=':
      return at < s[1];
    case '>':
      return at >= s[1];
    case '>=':
      return at >= s[0];
  }
}

function numberMatches(n: number, op: KqlOp, value: string, range?: [string, string]): boolean {
  if (range) return /^\d+$/.test(range[0]) && /^\d+$/.test(range[1]) && n >= Number(range[0]) && n <= Number(range[1]);
  if (!/^\d+$/.test(value)) return false;
  const v = Number(value);
  return op === '<' ? n < v : op === '<=' ? n <= v : op === '>' ? n > v : op === '>=' ? n >= v : op === '<>' ? n !== v : n === v;
}

function termMatches(t: Extract<KqlNode, { kind: 'term' }>, m: Searchable): boolean {
  const text = (field: string) => (t.op === ':' || t.op === '=') && textMatches(field, t.value);
  switch (t.prop) {
    case null:
      return text(m.from) || text(m.subject) || text(m.body);
    case 'from':
    case 'to':
    case 'cc':
    case 'bcc':
    case 'subject':
    case 'body':
      return text(m[t.prop]);
    case 'recipients':
      return text(m.to) || text(m.cc) || text(m.bcc);
    case 'participants':
      return text(m.from) || text(m.to) || text(m.cc) || text(m.bcc);
    case 'attachment':
      return text(m.attachmentNames);
    case 'hasattachment':
    case 'hasattachments':
      return (t.op === ':' || t.op === '=') && String(m.hasAttachments) === t.value.toLowerCase();
    case 'importance':
      return (t.op === ':' || t.op === '=') && (t.value.toLowerCase() === 'medium' ? 'normal' : t.value.toLowerCase()) === m.importance;
    case 'kind':
      return (t.op === ':' || t.op === '=') && t.value.toLowerCase() === 'email';
    case 'received':
    case 'sent':
      return compare(t.prop === 'received' ? m.received : m.sent, t.op, t.value, t.range);
    case 'size':
      return numberMatches(m.size, t.op, t.value, t.range);
    default:
      return false;
  }
}

export function kqlMatches(node: KqlNode, m: Searchable): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((n) => kqlMatches(n, m));
    case 'or':
      return node.items.some((n) => kqlMatches(n, m));
    case 'not':
      return !kqlMatches(node.item, m);
    case 'term':
      return termMatches(node, m);
  }
}
