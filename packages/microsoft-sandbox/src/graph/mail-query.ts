import type { GraphCtx } from './context';
import { type GraphError, graphError } from './errors';
import { filterPaths } from './filter';
import type { ParsedQuery } from './odata';

/**
 * Outlook's rules for querying messages.
 *
 * `$filter` with `$orderby` (user-list-messages, "Using filter and orderby in the same query"): the properties
 * in $orderby must also appear in $filter, in the same order, before any property that is not in $orderby —
 * otherwise 400 InefficientFilter, "The restriction or sort order is too complex for this operation."
 *
 * `$search` (learn.microsoft.com/graph/search-query-parameter): KQL over from, subject and body by default or
 * the named properties; "A $search request returns up to 1,000 results"; results "are sorted by the date and
 * time that the message was sent"; it cannot be combined with `$filter` or `$orderby`. The codes Graph answers
 * those with are not documented: reported answers are SearchWithFilter / SearchWithOrderBy with "The query
 * parameter '$filter' is not supported with '$search'." — the sandbox sends those.
 */

export function checkFilterOrder(query: ParsedQuery): GraphError | undefined {
  if (!query.filter || query.orderby.length === 0) return undefined;
  const inFilter = filterPaths(query.filter);
  const ordered = query.orderby.map((o) => o.path.toLowerCase());
  const leading = inFilter.slice(0, ordered.length).map((p) => p.toLowerCase());
  if (ordered.every((p, i) => leading[i] === p)) return undefined;
  return graphError(400, 'InefficientFilter', 'The restriction or sort order is too complex for this operation.');
}

export function checkSearchCombination(ctx: GraphCtx): GraphError | undefined {
  const has = (n: string) => ctx.req.query[n] !== undefined;
  if (!has('$search')) return undefined;
  if (has('$filter')) return graphError(400, 'SearchWithFilter', "The query parameter '$filter' is not supported with '$search'.");
  if (has('$orderby')) return graphError(400, 'SearchWithOrderBy', "The query parameter '$orderBy' is not supported with '$search'.");
  return undefined;
}

export const SEARCH_RESULT_LIMIT = 1000;

type Term = { prop: string | null; value: string };

/** `"from:ana subject:plan budget"` → terms; OR between two terms makes them alternatives. */
export function parseSearch(raw: string): Term[][] {
  const text = raw.trim().replace(/^"(.*)"$/s, '$1');
  const tokens = text.match(/(?:[^\s"]+:)?(?:"[^"]*"|[^\s"]+)/g) ?? [];
  const groups: Term[][] = [];
  let pendingOr = false;
  for (const t of tokens) {
    if (t === 'OR') {
      pendingOr = true;
      continue;
    }
    if (t === 'AND') continue;
    const m = /^([A-Za-z]+):(.*)$/.exec(t);
    const term: Term = m ? { prop: m[1]!.toLowerCase(), value: m[2]!.replace(/^"|"$/g, '') } : { prop: null, value: t.replace(/^"|"$/g, '') };
    if (pendingOr && groups.length) groups[groups.length - 1]!.push(term);
    else groups.push([term]);
    pendingOr = false;
  }
  return groups;
}

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
}

function termMatches(t: Term, m: Searchable): boolean {
  const v = t.value.toLowerCase();
  const has = (s: string) => s.toLowerCase().includes(v);
  switch (t.prop) {
    case null:
      return has(m.from) || has(m.subject) || has(m.body);
    case 'from':
      return has(m.from);
    case 'to':
      return has(m.to);
    case 'cc':
      return has(m.cc);
    case 'bcc':
      return has(m.bcc);
    case 'recipients':
      return has(m.to) || has(m.cc) || has(m.bcc);
    case 'participants':
      return has(m.from) || has(m.to) || has(m.cc) || has(m.bcc);
    case 'subject':
      return has(m.subject);
    case 'body':
      return has(m.body);
    case 'attachment':
      return has(m.attachmentNames);
    case 'hasattachments':
      return String(m.hasAttachments) === v;
    case 'importance':
      return m.importance === v;
    case 'received':
    case 'sent': {
      const day = Date.parse(`${t.value}T00:00:00Z`);
      const at = t.prop === 'received' ? m.received : m.sent;
      return !Number.isNaN(day) && at >= day && at < day + 86_400_000;
    }
    default:
      return false;
  }
}

export const searchMatches = (groups: Term[][], m: Searchable) => groups.every((alternatives) => alternatives.some((t) => termMatches(t, m)));
