import type { MessageBody, MessageSummary, SearchOptions, SearchPage } from '../../core/mail';
import { type HubError, type Result, fail, ok } from '../../core/errors';
import { validationError } from '../../core/validation';
import { type MailContext, odataString, unexpectedAnswer } from './mail-context';
import { bodyOf, folderId, ownAddress, toSummary } from './mail-read';
import { type GraphMessage, SUMMARY_FIELDS, messageListSchema } from './mail-schemas';
import type { Cond, WellKnownFolder } from './search-operators';
import { continuationOf, decodePageToken, encodePageToken } from './search-page-token';
import { type CondExpr, type SearchPlan, SearchRefusal, filterOf, needsOwnAddress, planSearch } from './search-plan';

/**
 * email_search on Outlook: the Gmail query planned (search-plan.ts), one list request built by the Hub, the
 * conditions Graph could not take checked on what it listed, then the page's summaries (and bodies).
 *
 * `resultSizeEstimate` is Graph's `@odata.count` for a `$filter` search — a true count of every match
 * (query-parameters, "count parameter") — and null for a `$search`: Graph documents no count there, and a
 * search "returns up to 1000 results" (search-query-parameter), so no number it could give would be the total.
 * A page of a text search that also checks is:unread (or leaves out Deleted Items) can hold fewer messages than
 * asked for while a next page exists; `nextPageToken` alone says whether more may follow.
 */

/** Bodies converted at once: the HTML converter's pool is shared, and one search should not take all of it. */
const BODY_CONCURRENCY = 8;
/** Graph's `$filter` needs the `$orderby` property first (InefficientFilter): a condition every message meets. */
const ORDER_ANCHOR = 'receivedDateTime ge 1900-01-01T00:00:00Z';

const queryError = (message: string) => validationError(message, [{ path: 'inputs.query', message }]);
const tokenError = (problem: string) =>
  validationError('The page_token is not one this search issued for this query', [{ path: 'inputs.page_token', message: problem }]);

function holds(c: Cond, m: GraphMessage): boolean {
  let have: unknown;
  let want: unknown = c.value;
  switch (c.path) {
    case 'receivedDateTime':
      have = Date.parse(m.receivedDateTime ?? '');
      want = Date.parse(String(c.value));
      break;
    case 'isRead':
      have = m.isRead === true;
      break;
    case 'hasAttachments':
      have = m.hasAttachments === true;
      break;
    case 'flag/flagStatus':
      have = (m.flag?.flagStatus ?? '').toLowerCase();
      want = String(c.value).toLowerCase();
      break;
    case 'internetMessageId':
      have = (m.internetMessageId ?? '').toLowerCase();
      want = String(c.value).toLowerCase();
      break;
  }
  if (Number.isNaN(have)) return false;
  const [a, b] = [have as number, want as number];
  return c.op === 'eq' ? a === b : c.op === 'ne' ? a !== b : c.op === 'gt' ? a > b : c.op === 'ge' ? a >= b : c.op === 'lt' ? a < b : a <= b;
}

const matches = (e: CondExpr, m: GraphMessage): boolean =>
  e.kind === 'cond' ? holds(e.cond, m) : e.kind === 'and' ? e.items.every((i) => matches(i, m)) : e.items.some((i) => matches(i, m));

/** The list request for a plan; `exclude` are the folders' ids. */
function request(plan: SearchPlan, options: SearchOptions, exclude: string[], continuation?: { param: string; value: string }) {
  const query: Record<string, string> = {
    $select: options.includeBody ? `${SUMMARY_FIELDS},body` : SUMMARY_FIELDS,
    $top: String(options.maxResults),
  };
  if (plan.mode === 'search') {
    // The whole value in double quotes, inner quotes and backslashes escaped (search-query-parameter).
    query.$search = `"${plan.kql!.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  } else {
    const parts = [ORDER_ANCHOR, ...(plan.filter ? [plan.filter.kind === 'or' ? `(${filterOf(plan.filter)})` : filterOf(plan.filter)] : [])];
    for (const id of exclude) parts.push(`parentFolderId ne ${odataString(id)}`);
    query.$filter = parts.join(' and ');
    query.$orderby = 'receivedDateTime desc';
    query.$count = 'true';
  }
  if (continuation) query[continuation.param] = continuation.value;
  return { method: 'GET' as const, path: plan.folder ? `/me/mailFolders/${plan.folder}/messages` : '/me/messages', query };
}

async function folderIds(ctx: MailContext, folders: WellKnownFolder[]): Promise<Result<string[]>> {
  const ids = await Promise.all(folders.map((f) => folderId(ctx, f)));
  const failed = ids.find((r) => !r.ok);
  return failed && !failed.ok ? failed : ok(ids.map((r) => (r.ok ? r.value : '')));
}

/** Graph refused the request itself: the query (or the token in it) is the cause, and the agent can change it. */
function refusedBy(error: HubError, withToken: boolean): HubError {
  if (error.code !== 'EXTERNAL_API_ERROR' || error.details?.upstream_status !== 400) return error;
  if (withToken) return tokenError('Outlook did not accept this page token');
  return queryError(`Outlook refused this search${typeof error.details.message === 'string' ? `: ${error.details.message}` : ''}`);
}

export async function searchMail(ctx: MailContext, query: string, options: SearchOptions, signal?: AbortSignal): Promise<Result<SearchPage>> {
  const token = options.pageToken === undefined ? undefined : decodePageToken(options.pageToken, query);
  if (token && !token.ok) return fail(tokenError(token.problem));
  // Whole seconds, as the token keeps them: every page counts relative dates from the same instant.
  const now = token?.ok ? token.state.now : Math.floor(ctx.now() / 1000) * 1000;
  let own: string | null = null;
  if (needsOwnAddress(query)) {
    const got = await ownAddress(ctx);
    if (!got.ok) return got;
    own = got.value;
  }
  let plan: SearchPlan;
  try {
    plan = planSearch(query, { now, ownAddress: own });
  } catch (err) {
    if (err instanceof SearchRefusal) return fail(queryError(err.message));
    throw err;
  }
  if (token?.ok && token.state.mode !== plan.mode) return fail(tokenError('not a page token this search issued'));
  const excluded = await folderIds(ctx, plan.exclude);
  if (!excluded.ok) return excluded;

  const listed = await ctx.graph(
    { operation: 'messages.list', idempotent: true },
    request(plan, options, plan.mode === 'filter' ? excluded.value : [], token?.ok ? token.state.continuation : undefined),
    messageListSchema,
  );
  if (!listed.ok) return fail(refusedBy(listed.error, token !== undefined));
  const skipped = new Set(plan.mode === 'search' ? excluded.value : []);
  const found = listed.value.value.slice(0, options.maxResults).filter((m) => !skipped.has(m.parentFolderId ?? '') && (!plan.local || matches(plan.local, m)));

  const nextLink = listed.value['@odata.nextLink'];
  let nextPageToken: string | null = null;
  if (nextLink) {
    const continuation = continuationOf(nextLink);
    // More exist but the Hub could not say where they start: an error, never a silently shorter answer.
    if (!continuation) return fail(unexpectedAnswer('messages.list'));
    nextPageToken = encodePageToken(query, { mode: plan.mode, now, continuation });
  }
  const messages = await withBodies(ctx, found, options.includeBody, signal);
  return ok({ messages, nextPageToken, resultSizeEstimate: plan.mode === 'filter' ? (listed.value['@odata.count'] ?? null) : null });
}

async function withBodies(
  ctx: MailContext,
  found: GraphMessage[],
  includeBody: boolean,
  signal?: AbortSignal,
): Promise<Array<MessageSummary & Partial<MessageBody>>> {
  if (!includeBody) return found.map(toSummary);
  const out: Array<MessageSummary & Partial<MessageBody>> = new Array(found.length);
  let next = 0;
  const worker = async () => {
    while (next < found.length) {
      const i = next++;
      out[i] = { ...toSummary(found[i]!), ...(await bodyOf(ctx, found[i]!, signal)) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(BODY_CONCURRENCY, found.length) }, worker));
  return out;
}
