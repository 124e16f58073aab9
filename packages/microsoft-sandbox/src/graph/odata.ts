import { loadGraphSchema, propertyType } from '../csdl/schema';
import type { Answer, GraphCtx } from './context';
import { GE, type GraphError, graphError } from './errors';
import { type Expr, evaluate, filterPaths, parseFilter } from './filter';

/**
 * Collection queries as Graph answers them (learn.microsoft.com/graph/query-parameters, /paging): `$select`,
 * `$filter`, `$orderby`, `$top`, `$skip`, `@odata.nextLink`. Names are checked against the CSDL: an unknown
 * one is Graph's "Could not find a property named…" (RequestBroker--ParseUri). Outlook's own rules for
 * messages (the InefficientFilter rule, what `$search` cannot be combined with) sit in mail-query.ts.
 */

export interface ListSpec {
  /** CSDL entity name (`message`, `event`). */
  entity: string;
  /** Default and largest page size. */
  defaultTop: number;
  maxTop: number;
  /** The order without $orderby. */
  defaultOrder?: (a: Record<string, unknown>, b: Record<string, unknown>) => number;
  contextPath: string;
  /** Properties items carry only so `$filter` can see them (extended properties), removed from the answer. */
  hidden?: readonly string[];
}

export interface ParsedQuery {
  select: string[] | undefined;
  filter: Expr | undefined;
  orderby: { path: string; desc: boolean }[];
  top: number;
  skip: number;
}

const q = (ctx: GraphCtx, name: string) => {
  const v = ctx.req.query[name] ?? ctx.req.query[name.slice(1)];
  return typeof v === 'string' ? v : undefined;
};

export const queryParam = q;

function knownPath(entity: string, path: string): boolean {
  const schema = loadGraphSchema();
  let type: string | undefined = `microsoft.graph.${entity}`;
  for (const seg of path.split('/')) {
    if (!type) return false;
    const inner: string = type.replace(/^Collection\((.+)\)$/, '$1');
    type = propertyType(schema, inner, seg);
  }
  return type !== undefined;
}

export function parseQuery(ctx: GraphCtx, spec: ListSpec): ParsedQuery | GraphError {
  const select = q(ctx, '$select')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of select ?? []) if (!knownPath(spec.entity, s)) return GE.badProperty(s, spec.entity);
  let filter: Expr | undefined;
  const rawFilter = q(ctx, '$filter');
  if (rawFilter !== undefined) {
    const parsed = parseFilter(rawFilter);
    if ('code' in parsed) return parsed;
    for (const p of filterPaths(parsed)) {
      const root = p.split('/')[0]!;
      // Lambda variables (`r/emailAddress/address` inside any()) are not the entity's properties.
      if (!rawFilter.includes(`${root}:`) && !knownPath(spec.entity, p)) return GE.badProperty(p, spec.entity);
    }
    filter = parsed;
  }
  const orderby: ParsedQuery['orderby'] = [];
  for (const part of (q(ctx, '$orderby') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [path, dir] = part.split(/\s+/);
    if (!knownPath(spec.entity, path!)) return GE.badProperty(path!, spec.entity);
    if (dir && !/^(asc|desc)$/i.test(dir)) return graphError(400, 'BadRequest', `Syntax error at position ${part.length} in '${part}'.`);
    orderby.push({ path: path!, desc: /^desc$/i.test(dir ?? '') });
  }
  const rawTop = q(ctx, '$top');
  const maxPage = Number(ctx.prefs.get('odata.maxpagesize'));
  let top = spec.defaultTop;
  if (Number.isInteger(maxPage) && maxPage > 0) {
    top = Math.min(maxPage, spec.maxTop);
    ctx.applied.push(`odata.maxpagesize=${top}`);
  }
  if (rawTop !== undefined) {
    const n = Number(rawTop);
    if (!/^\d+$/.test(rawTop) || n < 1)
      return graphError(
        400,
        'BadRequest',
        `Invalid value '${rawTop}' for $top query option found. The $top query option requires a non-negative integer value.`,
      );
    if (n > spec.maxTop)
      return graphError(
        400,
        'ErrorInvalidUrlQuery',
        `The value '${rawTop}' of the $top query parameter is out of range. It must be between 1 and ${spec.maxTop}.`,
      );
    top = n;
  }
  const rawSkip = q(ctx, '$skip');
  const skip = rawSkip === undefined ? 0 : Number(rawSkip);
  if (!Number.isInteger(skip) || skip < 0) return graphError(400, 'BadRequest', `Invalid value '${rawSkip}' for $skip query option found.`);
  return { select, filter, orderby, top, skip };
}

const readPath = (o: Record<string, unknown>, path: string) =>
  path.split('/').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);

export function compareBy(orderby: ParsedQuery['orderby']) {
  return (a: Record<string, unknown>, b: Record<string, unknown>) => {
    for (const { path, desc } of orderby) {
      const x = readPath(a, path);
      const y = readPath(b, path);
      const c =
        x === y ? 0 : x === null || x === undefined ? -1 : y === null || y === undefined ? 1 : String(x).toLowerCase() < String(y).toLowerCase() ? -1 : 1;
      if (c !== 0) return desc ? -c : c;
    }
    return 0;
  };
}

export function project(item: Record<string, unknown>, select: string[] | undefined) {
  if (!select) return item;
  const out: Record<string, unknown> = { '@odata.etag': item['@odata.etag'], id: item.id };
  // A property the item does not have is left out, as Graph leaves it out (internetMessageHeaders in Sent Items).
  for (const s of select) if (item[s] !== undefined) out[s] = item[s];
  return out;
}

/** The next page's absolute URL: this request's, with the paging parameter moved on. */
export function nextLink(ctx: GraphCtx, param: '$skip' | '$skiptoken', value: string) {
  const url = new URL(ctx.req.originalUrl, ctx.baseUrl);
  url.searchParams.delete('$skip');
  url.searchParams.delete('$skiptoken');
  url.searchParams.set(param, value);
  return url.toString();
}

function withoutHidden(item: Record<string, unknown>, hidden: readonly string[] | undefined) {
  if (!hidden?.length) return item;
  const copy = { ...item };
  for (const h of hidden) delete copy[h];
  return copy;
}

/**
 * Filters, orders, pages and projects already-serialised items. `$count=true` adds `@odata.count`, the number of
 * all matching items (query-parameters, "count parameter": "/me/messages?$top=2&$count=true").
 */
export function listAnswer(ctx: GraphCtx, spec: ListSpec, items: Record<string, unknown>[], query: ParsedQuery): Answer {
  let rows = query.filter ? items.filter((i) => evaluate(query.filter!, i)) : items;
  rows = query.orderby.length ? [...rows].sort(compareBy(query.orderby)) : spec.defaultOrder ? [...rows].sort(spec.defaultOrder) : rows;
  const page = rows.slice(query.skip, query.skip + query.top);
  const more = query.skip + query.top < rows.length;
  const count = String(q(ctx, '$count')).toLowerCase() === 'true';
  return {
    status: 200,
    type: `Collection(microsoft.graph.${spec.entity})`,
    body: {
      '@odata.context': `${ctx.baseUrl}/v1.0/$metadata#${spec.contextPath}${query.select ? `(${query.select.join(',')})` : ''}`,
      ...(count ? { '@odata.count': rows.length } : {}),
      value: page.map((i) => project(withoutHidden(i, spec.hidden), query.select)),
      ...(more ? { '@odata.nextLink': nextLink(ctx, '$skip', String(query.skip + query.top)) } : {}),
    },
  };
}
