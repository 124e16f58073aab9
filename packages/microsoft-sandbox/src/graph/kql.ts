import { type GraphError, graphError } from './errors';

/**
 * Reading a message `$search` the way Graph reads it: the whole value in double quotes with inner quotes and
 * backslashes backslash-escaped (the docs' own form, `$search="from:\"Acme Corp\""`), holding a Keyword Query
 * Language query (SharePoint's KQL syntax reference, which Graph's search-query-parameter page points to):
 * words, "phrases", property restrictions `prop:value`, `prop:"a phrase"`, `prop>=value`, `prop:a..b`, the
 * Boolean operators AND, OR and NOT (uppercase only — "the operators are case-sensitive (uppercase)"; a lowercase
 * `and` is a word), `+`/`-` inclusion and exclusion, parentheses, and implicit AND between expressions. KQL's
 * rule for repeats: "When you use multiple instances of the same property restriction, matches are based on the
 * union" — `from:a from:b` is `from:a OR from:b`, which only an explicit AND changes. "If the KQL query contains
 * only operators or is empty, it isn't valid."
 *
 * Without the outer quotes Graph reads the value as OData's own search syntax, which takes bare words only: a
 * digit or a colon there is "Syntax error: character '0' is not valid at position 14"
 * (microsoftgraph/msgraph-sdk-powershell#402). Linear in the query's length.
 */

export type KqlOp = ':' | '=' | '<' | '>' | '<=' | '>=' | '<>';

export type KqlNode =
  | { kind: 'and' | 'or'; items: KqlNode[] }
  | { kind: 'not'; item: KqlNode }
  | { kind: 'term'; prop: string | null; op: KqlOp; value: string; range?: [string, string] };

const syntaxError = (raw: string, at: number, char: string) =>
  graphError(400, 'BadRequest', `Syntax error: character '${char}' is not valid at position ${at} in '${raw}'.`);

/** The KQL text inside Graph's quoting, or the refusal of an unquoted value OData's search syntax cannot read. */
function unwrap(raw: string): string | GraphError {
  const trimmed = raw.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    let out = '';
    const inner = trimmed.slice(1, -1);
    for (let i = 0; i < inner.length; i++) {
      const c = inner[i]!;
      if (c === '\\' && (inner[i + 1] === '"' || inner[i + 1] === '\\')) out += inner[++i];
      else if (c === '"')
        return syntaxError(raw, i + 1, c); // an unescaped quote ends the value early
      else out += c;
    }
    return out;
  }
  const bad = /[^A-Za-z\s]/.exec(raw);
  return bad ? syntaxError(raw, bad.index, bad[0]) : raw;
}

type Token = { t: '(' | ')' | 'AND' | 'OR' | 'NOT' } | { t: 'expr'; text: string; sign: '' | '+' | '-' };

function tokenize(kql: string, raw: string): Token[] | GraphError {
  const out: Token[] = [];
  let i = 0;
  while (i < kql.length) {
    const c = kql[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      out.push({ t: c });
      i++;
      continue;
    }
    let sign: '' | '+' | '-' = '';
    if ((c === '+' || c === '-') && i + 1 < kql.length && !/[\s()]/.test(kql[i + 1]!)) {
      sign = c;
      i++;
    }
    let text = '';
    while (i < kql.length && !/[\s()]/.test(kql[i]!)) {
      if (kql[i] === '"') {
        const close = kql.indexOf('"', i + 1);
        if (close < 0) return syntaxError(raw, i, '"');
        text += kql.slice(i, close + 1);
        i = close + 1;
      } else text += kql[i++];
    }
    if (!sign && (text === 'AND' || text === 'OR' || text === 'NOT')) out.push({ t: text });
    else out.push({ t: 'expr', text, sign });
  }
  return out;
}

const MAX_NESTING = 64;
const RESTRICTION = /^([A-Za-z]+)(<=|>=|<>|:|=|<|>)(.+)$/s;
const unquote = (v: string) => (v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v);

function term(text: string): KqlNode {
  const m = RESTRICTION.exec(text);
  if (!m) return { kind: 'term', prop: null, op: ':', value: unquote(text) };
  const value = m[3]!;
  const range = /^([^."]+)\.\.([^."]+)$/.exec(value);
  return {
    kind: 'term',
    prop: m[1]!.toLowerCase(),
    op: m[2] as KqlOp,
    value: unquote(value),
    ...(range && m[2] === ':' ? { range: [range[1]!, range[2]!] as [string, string] } : {}),
  };
}

/** Same-property terms joined without an explicit AND are alternatives (the KQL rule above). */
function implicitUnion(items: { node: KqlNode; explicit: boolean }[]): KqlNode[] {
  const out: KqlNode[] = [];
  for (const { node, explicit } of items) {
    const last = out[out.length - 1];
    const propOf = (n: KqlNode | undefined) => (n?.kind === 'term' ? n.prop : n?.kind === 'or' && n.items[0]?.kind === 'term' ? n.items[0].prop : undefined);
    const prop = propOf(node);
    if (!explicit && prop && last && propOf(last) === prop && (last.kind === 'term' || last.kind === 'or')) {
      out[out.length - 1] = { kind: 'or', items: [...(last.kind === 'or' ? last.items : [last]), node] };
    } else out.push(node);
  }
  return out;
}

export function parseKql(raw: string): KqlNode | GraphError {
  const kql = unwrap(raw);
  if (typeof kql !== 'string') return kql;
  const tokens = tokenize(kql, raw);
  if (!Array.isArray(tokens)) return tokens;
  if (!tokens.some((t) => t.t === 'expr')) return graphError(400, 'BadRequest', 'The search query is empty or contains only operators.');
  let i = 0;
  let depth = 0;
  const invalid = () => graphError(400, 'BadRequest', `Syntax error in the search query '${raw}'.`);
  // Each token is read once; nesting (parentheses, NOT) is bounded so a hostile query cannot exhaust the stack.
  const unary = (): KqlNode | GraphError => {
    const t = tokens[i++];
    if (!t) return invalid();
    if ((t.t === 'NOT' || t.t === '(') && ++depth > MAX_NESTING) return invalid();
    if (t.t === 'NOT') {
      const inner = unary();
      depth--;
      return 'code' in inner ? inner : { kind: 'not', item: inner };
    }
    if (t.t === '(') {
      const inner = or();
      depth--;
      if ('code' in inner) return inner;
      if (tokens[i++]?.t !== ')') return invalid();
      return inner;
    }
    if (t.t !== 'expr') return invalid();
    const node = term(t.text);
    return t.sign === '-' ? { kind: 'not', item: node } : node;
  };
  const and = (): KqlNode | GraphError => {
    const items: { node: KqlNode; explicit: boolean }[] = [];
    let explicit = false;
    for (;;) {
      const node = unary();
      if ('code' in node) return node;
      items.push({ node, explicit });
      const next = tokens[i];
      if (!next || next.t === ')' || next.t === 'OR') break;
      explicit = next.t === 'AND';
      if (explicit) i++;
    }
    const merged = implicitUnion(items);
    return merged.length === 1 ? merged[0]! : { kind: 'and', items: merged };
  };
  const or = (): KqlNode | GraphError => {
    const items: KqlNode[] = [];
    for (;;) {
      const node = and();
      if ('code' in node) return node;
      items.push(node);
      if (tokens[i]?.t !== 'OR') break;
      i++;
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  };
  const root = or();
  if ('code' in root) return root;
  return i === tokens.length ? root : invalid();
}
