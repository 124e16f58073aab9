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
 * the named properties (kql.ts reads it, kql-match.ts matches it); "A $search request returns up to 1,000
 * results"; results "are sorted by the date and time that the message was sent"; it cannot be combined with
 * `$filter` or `$orderby`. The codes Graph answers
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
