import { type Cond, type Leaf, type Refusal, type TermContext, type WellKnownFolder, AROUND_ROW, kqlPhrase, rowFor } from './search-operators';
import { QuerySyntaxError, type QueryNode, parseQuery } from './search-query';

/**
 * A Gmail query → one Graph request that answers exactly it, under Graph's rules for messages: `$search` (KQL)
 * cannot be combined with `$filter` or `$orderby` (search-query-parameter; SearchWithFilter/SearchWithOrderBy), and
 * `$filter` with `$orderby` needs the ordered property first in the filter (user-list-messages, InefficientFilter).
 *
 * - A query with any text term (words, phrases, from:, subject:…) becomes a `$search`. Its conditions Graph's
 *   KQL has no property for (is:unread, is:starred, rfc822msgid:) must then stand on their own at the top level
 *   (`subject:x is:unread`, not `subject:x OR is:unread`): the Hub checks them on each listed message.
 * - A query of conditions only (dates, is:, has:attachment, rfc822msgid:) becomes a `$filter`, newest first.
 * - `in:` picks the folder the list is read from, so it must stand at the top level too; without it, as in Gmail,
 *   Deleted Items and Junk Email are left out (and `-in:` leaves out one more).
 * Anything else — an operator Outlook lacks, a combination Graph refuses — is a refusal naming the operator.
 */

export type CondExpr = { kind: 'and' | 'or'; items: CondExpr[] } | { kind: 'cond'; cond: Cond };
type Expr = { kind: 'and' | 'or'; items: Expr[] } | { kind: 'not'; item: Expr } | { kind: 'leaf'; leaf: Leaf; term: string };

export interface SearchPlan {
  mode: 'search' | 'filter';
  /** The folder the list is read from (its path); null: the whole mailbox. */
  folder: WellKnownFolder | null;
  /** Folders whose messages are left out. */
  exclude: WellKnownFolder[];
  /** `$search`'s KQL (search mode). */
  kql?: string;
  /** `$filter`'s conditions (filter mode), before the folder exclusions and the ordering anchor. */
  filter?: CondExpr;
  /** Conditions the Hub checks on each listed message (search mode). */
  local?: CondExpr;
}

export class SearchRefusal extends Error {}

const refuse = (message: string): never => {
  throw new SearchRefusal(message);
};

/** The term as the agent wrote it, for messages. */
const termText = (n: Extract<QueryNode, { kind: 'text' | 'op' }>) => {
  const value = n.phrase ? `"${n.value}"` : n.value;
  return (n.kind === 'op' ? `${n.name}:${value}` : value).slice(0, 80);
};

function leafOf(out: Leaf | Refusal, term: string): Expr {
  if ('refused' in out) return refuse(`Outlook cannot search ${term}: ${out.refused}`);
  return { kind: 'leaf', leaf: out, term };
}

function interpret(node: QueryNode, ctx: TermContext): Expr {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, items: node.items.map((n) => interpret(n, ctx)) };
    case 'not':
      return { kind: 'not', item: interpret(node.item, ctx) };
    case 'text': {
      if (!node.phrase && node.value === 'AROUND') return refuse(`Outlook cannot search AROUND: ${AROUND_ROW.note}`);
      const phrase = kqlPhrase(node.value);
      if (typeof phrase !== 'string') return leafOf(phrase, termText(node));
      // Gmail's free text is searched everywhere: KQL's default properties (from, subject, body), and the rest.
      return leafOf({ kind: 'kql', kql: `(${phrase} OR participants:${phrase} OR attachment:${phrase})` }, termText(node));
    }
    case 'op': {
      const row = rowFor(node.name, node.value);
      // Not an operator Gmail has: Gmail searches it as text, and so does the Hub.
      if (!row) return interpret({ kind: 'text', value: `${node.name}:${node.value}`, phrase: true }, ctx);
      if (row.refused || !row.translate) return refuse(`Outlook cannot search ${termText(node)} (${row.operator}): ${row.note}`);
      return leafOf(row.translate(node.value, node.phrase, ctx), termText(node));
    }
  }
}

const leaves = (e: Expr): Extract<Expr, { kind: 'leaf' }>[] => (e.kind === 'leaf' ? [e] : e.kind === 'not' ? leaves(e.item) : e.items.flatMap(leaves));
const hasKql = (e: Expr) => leaves(e).every((l) => l.leaf.kind === 'kql');
const hasCond = (e: Expr) => leaves(e).every((l) => l.leaf.kind === 'cond' || (l.leaf.kind === 'kql' && l.leaf.cond !== undefined));

const FLIP: Record<Cond['op'], Cond['op']> = { eq: 'ne', ne: 'eq', gt: 'le', le: 'gt', ge: 'lt', lt: 'ge' };

/** Conditions with every NOT pushed down to the comparisons (De Morgan), so the filter needs no `not`. */
function toCond(e: Expr, negate = false): CondExpr {
  switch (e.kind) {
    case 'leaf': {
      const c = e.leaf.kind === 'cond' ? e.leaf.cond : e.leaf.kind === 'kql' ? e.leaf.cond! : refuse(`${e.term} cannot be a condition`);
      return { kind: 'cond', cond: negate ? { ...c, op: FLIP[c.op] } : c };
    }
    case 'not':
      return toCond(e.item, !negate);
    case 'and':
    case 'or':
      return { kind: (e.kind === 'and') !== negate ? 'and' : 'or', items: e.items.map((i) => toCond(i, negate)) };
  }
}

const wrap = (e: Expr) => (e.kind === 'and' || e.kind === 'or' ? `(${kqlOf(e)})` : kqlOf(e));

function kqlOf(e: Expr): string {
  switch (e.kind) {
    case 'leaf':
      return (e.leaf as Extract<Leaf, { kind: 'kql' }>).kql;
    case 'not':
      return `NOT ${wrap(e.item)}`;
    case 'and':
    case 'or':
      // Explicit AND always: KQL joins repeats of one property without it as alternatives (KQL syntax reference).
      return e.items.map(wrap).join(e.kind === 'and' ? ' AND ' : ' OR ');
  }
}

/** Whether the expression can match without relying on a NOT alone (KQL needs something to include). */
const positive = (e: Expr): boolean =>
  e.kind === 'leaf' ? true : e.kind === 'not' ? false : e.kind === 'and' ? e.items.some(positive) : e.items.every(positive);

function literal(c: Cond): string {
  if (typeof c.value === 'boolean') return String(c.value);
  return c.path === 'receivedDateTime' ? c.value : `'${c.value.replace(/'/g, "''")}'`;
}

/** Conditions as OData `$filter` text (string literals with quotes doubled; dates and booleans bare). */
export function filterOf(e: CondExpr): string {
  if (e.kind === 'cond') return `${e.cond.path} ${e.cond.op} ${literal(e.cond)}`;
  return e.items.map((i) => (i.kind === 'cond' ? filterOf(i) : `(${filterOf(i)})`)).join(` ${e.kind} `);
}

/** Matches every message: lets a query of exclusions only (`-from:x`) be a valid KQL query. */
export const KQL_ANCHOR = 'received>=1900-01-01T00:00:00Z';

export function planSearch(query: string, ctx: TermContext): SearchPlan {
  let tree: QueryNode;
  try {
    tree = parseQuery(query);
  } catch (err) {
    if (err instanceof QuerySyntaxError) return refuse(`The query cannot be read: ${err.message}`);
    throw err;
  }
  const root = interpret(tree, ctx);
  const conjuncts = root.kind === 'and' ? root.items : [root];

  let folder: WellKnownFolder | 'anywhere' | null = null;
  const exclude = new Set<WellKnownFolder>();
  const rest: Expr[] = [];
  for (const c of conjuncts) {
    const target = c.kind === 'not' && c.item.kind === 'leaf' ? c.item : c;
    if (target.kind === 'leaf' && target.leaf.kind === 'folder') {
      const f = target.leaf.folder;
      if (c.kind === 'not') {
        if (f === 'anywhere') refuse('Outlook cannot search -in:anywhere: it leaves nothing');
        else exclude.add(f);
      } else if (folder !== null && folder !== f) refuse(`Outlook cannot search two folders at once (${target.term}): a search reads one folder, or all`);
      else folder = f;
    } else {
      if (leaves(c).some((l) => l.leaf.kind === 'folder'))
        refuse(`Outlook cannot search in: inside OR, NOT or a group (${leaves(c).find((l) => l.leaf.kind === 'folder')!.term}): it names the folder searched`);
      rest.push(c);
    }
  }
  if (folder === null) for (const f of ['deleteditems', 'junkemail'] as const) exclude.add(f);
  const plan = { folder: folder === 'anywhere' ? null : folder, exclude: [...exclude].filter((f) => f !== folder) };

  if (rest.some((c) => !hasCond(c))) {
    const kqlParts: Expr[] = [];
    const localParts: CondExpr[] = [];
    for (const c of rest) {
      if (hasKql(c)) kqlParts.push(c);
      else if (hasCond(c)) localParts.push(toCond(c));
      else {
        const odd = leaves(c).find((l) => l.leaf.kind === 'cond')!;
        refuse(
          `Outlook cannot search ${odd.term} inside OR or NOT together with text: Graph's text search has no such property and cannot be combined with $filter; put ${odd.term} on its own`,
        );
      }
    }
    const body: Expr = kqlParts.length === 1 ? kqlParts[0]! : { kind: 'and', items: kqlParts };
    const kql = kqlOf(body);
    return {
      mode: 'search',
      ...plan,
      kql: positive(body) ? kql : `${KQL_ANCHOR} AND ${body.kind === 'and' ? kql : wrap(body)}`,
      ...(localParts.length ? { local: localParts.length === 1 ? localParts[0]! : { kind: 'and', items: localParts } } : {}),
    };
  }
  const conds = rest.map((c) => toCond(c));
  return { mode: 'filter', ...plan, ...(conds.length ? { filter: conds.length === 1 ? conds[0]! : { kind: 'and', items: conds } } : {}) };
}

const ADDRESS_OPERATORS = new Set(['from', 'to', 'cc', 'bcc']);

/** Whether the query names `me` as an address (the mailbox's own address is then looked up first). */
export function needsOwnAddress(query: string): boolean {
  const walk = (n: QueryNode): boolean =>
    n.kind === 'op'
      ? ADDRESS_OPERATORS.has(n.name) && n.value.toLowerCase() === 'me'
      : n.kind === 'not'
        ? walk(n.item)
        : n.kind === 'text'
          ? false
          : n.items.some(walk);
  try {
    return walk(parseQuery(query));
  } catch {
    return false; // planSearch reports what cannot be read
  }
}
