import { type GraphError, graphError } from './errors';

/**
 * A small OData v4 `$filter` reader: comparisons (eq ne gt ge lt le), and/or/not, parentheses, contains /
 * startswith / endswith, `any` over a collection, string/number/boolean/null/date-time literals, and property
 * paths (`from/emailAddress/address`). It evaluates against the item as Graph serialises it, so a filter sees
 * exactly the values a client would read.
 */

export type Expr =
  | { kind: 'cmp'; op: string; left: Operand; right: Operand }
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; expr: Expr }
  | { kind: 'fn'; name: 'contains' | 'startswith' | 'endswith'; target: Operand; value: Operand }
  | { kind: 'any'; collection: string; variable: string; body: Expr }
  | { kind: 'bool'; operand: Operand };

export type Operand = { kind: 'path'; path: string } | { kind: 'lit'; value: string | number | boolean | null };

const TOKEN = /\s*('(?:[^']|'')*'|\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})?|-?\d+(?:\.\d+)?|[A-Za-z_][\w./]*(?::)?|\(|\)|,|:)/y;

function tokenize(input: string): string[] | GraphError {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < input.length) {
    if (/^\s*$/.test(input.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(input);
    if (!m) return invalid(input);
    tokens.push(m[1]!);
    pos = TOKEN.lastIndex;
  }
  return tokens;
}

const invalid = (input: string) => graphError(400, 'BadRequest', `Invalid filter clause: syntax error in '${input}'.`);
const COMPARE = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);

export function parseFilter(input: string): Expr | GraphError {
  const tokens = tokenize(input);
  if (!Array.isArray(tokens)) return tokens;
  let i = 0;
  const peek = () => tokens[i];
  const take = () => tokens[i++];
  const fail = () => {
    throw invalid(input);
  };
  const operand = (): Operand => {
    const t = take();
    if (t === undefined) return fail();
    if (t.startsWith("'")) return { kind: 'lit', value: t.slice(1, -1).replace(/''/g, "'") };
    if (t === 'true' || t === 'false') return { kind: 'lit', value: t === 'true' };
    if (t === 'null') return { kind: 'lit', value: null };
    if (/^-?\d+(\.\d+)?$/.test(t)) return { kind: 'lit', value: Number(t) };
    if (/^\d{4}-\d{2}-\d{2}T/.test(t)) return { kind: 'lit', value: t };
    if (/^[A-Za-z_]/.test(t)) return { kind: 'path', path: t };
    return fail();
  };
  const primary = (): Expr => {
    const t = peek();
    if (t === '(') {
      take();
      const e = or();
      if (take() !== ')') fail();
      return e;
    }
    if (t === 'not') {
      take();
      return { kind: 'not', expr: primary() };
    }
    if (t && ['contains', 'startswith', 'endswith'].includes(t.toLowerCase()) && tokens[i + 1] === '(') {
      i += 2;
      const target = operand();
      if (take() !== ',') fail();
      const value = operand();
      if (take() !== ')') fail();
      return { kind: 'fn', name: t.toLowerCase() as 'contains', target, value };
    }
    const left = operand();
    // Lambda operators as Graph's own examples write them too: `singleValueExtendedProperties/Any(ep: …)`.
    if (left.kind === 'path' && /\/any$/i.test(left.path) && peek() === '(') {
      take();
      let variable = take() ?? fail();
      if (variable.endsWith(':')) variable = variable.slice(0, -1);
      else if (take() !== ':') fail();
      const body = or();
      if (take() !== ')') fail();
      return { kind: 'any', collection: left.path.slice(0, -4), variable, body };
    }
    const op = peek();
    if (op && COMPARE.has(op)) {
      take();
      return { kind: 'cmp', op, left, right: operand() };
    }
    return { kind: 'bool', operand: left };
  };
  const and = (): Expr => {
    let e = primary();
    while (peek() === 'and') {
      take();
      e = { kind: 'and', left: e, right: primary() };
    }
    return e;
  };
  const or = (): Expr => {
    let e = and();
    while (peek() === 'or') {
      take();
      e = { kind: 'or', left: e, right: and() };
    }
    return e;
  };
  try {
    const e = or();
    if (i !== tokens.length) fail();
    return e;
  } catch (err) {
    return err as GraphError;
  }
}

/** The property paths a filter names, in order of first appearance (for the $orderby rule). */
export function filterPaths(e: Expr, out: string[] = []): string[] {
  const add = (o: Operand) => o.kind === 'path' && !out.includes(o.path) && out.push(o.path);
  switch (e.kind) {
    case 'cmp':
      add(e.left);
      add(e.right);
      break;
    case 'and':
    case 'or':
      filterPaths(e.left, out);
      filterPaths(e.right, out);
      break;
    case 'not':
      filterPaths(e.expr, out);
      break;
    case 'fn':
      add(e.target);
      break;
    case 'any':
      if (!out.includes(e.collection)) out.push(e.collection);
      break;
    case 'bool':
      add(e.operand);
  }
  return out;
}

function read(item: unknown, path: string, scope: Record<string, unknown>): unknown {
  const [head, ...rest] = path.split('/');
  let v: unknown = head! in scope ? scope[head!] : (item as Record<string, unknown>)?.[head!];
  for (const p of rest) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

const asComparable = (v: unknown) =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v.endsWith('Z') || /[+-]\d{2}:\d{2}$/.test(v) ? v : `${v}Z`) : v;

/**
 * An extended property's id names its property case-sensitively: "Filtering the string name (Name) in the id of
 * an extended property is case-sensitive. Filtering the value property of an extended property is
 * case-insensitive" (singlevaluelegacyextendedproperty-get). Every other string comparison ignores case.
 */
const EXACT = '\u0000exact';

export function evaluate(e: Expr, item: unknown, scope: Record<string, unknown> = {}): boolean {
  const val = (o: Operand) => (o.kind === 'lit' ? o.value : read(item, o.path, scope));
  const exact = (o: Operand) => o.kind === 'path' && o.path === scope[EXACT];
  switch (e.kind) {
    case 'and':
      return evaluate(e.left, item, scope) && evaluate(e.right, item, scope);
    case 'or':
      return evaluate(e.left, item, scope) || evaluate(e.right, item, scope);
    case 'not':
      return !evaluate(e.expr, item, scope);
    case 'bool':
      return val(e.operand) === true;
    case 'fn': {
      const target = String(val(e.target) ?? '').toLowerCase();
      const value = String(val(e.value) ?? '').toLowerCase();
      return e.name === 'contains' ? target.includes(value) : e.name === 'startswith' ? target.startsWith(value) : target.endsWith(value);
    }
    case 'any': {
      const list = read(item, e.collection, scope);
      const extended = /(^|\/)singleValueExtendedProperties$/i.test(e.collection);
      return (
        Array.isArray(list) && list.some((x) => evaluate(e.body, item, { ...scope, [e.variable]: x, ...(extended ? { [EXACT]: `${e.variable}/id` } : {}) }))
      );
    }
    case 'cmp': {
      let l = asComparable(val(e.left));
      let r = asComparable(val(e.right));
      if (typeof l === 'string' && typeof r === 'string' && !exact(e.left) && !exact(e.right)) [l, r] = [l.toLowerCase(), r.toLowerCase()];
      switch (e.op) {
        case 'eq':
          return l === r;
        case 'ne':
          return l !== r;
        default: {
          if (l === null || l === undefined || r === null || r === undefined) return false;
          const c = (l as number) < (r as number) ? -1 : (l as number) > (r as number) ? 1 : 0;
          return e.op === 'gt' ? c > 0 : e.op === 'ge' ? c >= 0 : e.op === 'lt' ? c < 0 : c <= 0;
        }
      }
    }
  }
}
