import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import { googleScope } from '../../integrations/integrations';
import { type ToolContext, defineTool } from '../types';
import { mapBounded } from './concurrency';
import { callGmail } from './gmail';
import { type GmailMessage, listSchema, messageSchema } from './gmail-schemas';
import { type MessageSummary, bodyDegradedField, dateField, messageFields, toSummary, truncatedField } from './map';
import { type MessageBody, messageBody } from './message-body';

/** messages.list with a query needs content access: gmail.metadata refuses `q`. */
const SCOPES = [googleScope('gmail.readonly')];

/**
 * How many messages.get requests one search starts at once. The binding limit is elsewhere: every Gmail request
 * of a mailbox waits for a place under HUB_GMAIL_MAX_IN_FLIGHT (src/protection/mailbox-gate.ts; Gmail refuses
 * too many concurrent requests per user with 429s) and pays its quota units first. 50 only bounds how many
 * waiters one search queues there (at most 100 results, so at most two such batches).
 */
export const SEARCH_CONCURRENCY = 50;

/** The contract's inputs; email_search@2 adds `page_token`. */
export const searchInputFields = {
  query: z
    .string()
    .max(2048)
    .describe('Gmail search query, as typed in Gmail\'s search box, e.g. "from:john@example.com subject:proposal newer_than:7d". Empty matches all mail.'),
  max_results: z.number().int().min(1).max(100).default(10).describe('How many messages to return, newest first (1–100, default 10).'),
  include_body: z.boolean().default(false).describe("Also return each message's text body (default false; bodies can be long)."),
};
const input = z.strictObject(searchInputFields);

export const searchSummary = z.object({
  ...messageFields,
  snippet: z.string(),
  date: dateField,
  has_attachments: z.boolean(),
  body: z.string().optional().describe('Text body, only with include_body.'),
  truncated: truncatedField,
  body_degraded: bodyDegradedField,
});
const output = z.object({ messages: z.array(searchSummary), total_results: z.number().int().describe('Number of messages returned.') });
type Output = z.output<typeof output>;

/** `signal` aborts once the search's answer is decided (another message failed): the body is not worked on. */
async function fetchMessage(
  ctx: ToolContext,
  id: string,
  withBody: boolean,
  signal: AbortSignal,
): Promise<Result<(MessageSummary & Partial<MessageBody>) | null>> {
  // format=full: only the parts tell exactly whether a message has attachments (metadata has no parts).
  const got = await callGmail(ctx, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
    api.users.messages.get({ userId: 'me', id, format: 'full' }, options),
  );
  // Deleted between the list and the get: it is simply no longer a result.
  if (!got.ok) return got.error.code === 'RESOURCE_NOT_FOUND' ? ok(null) : got;
  const message: GmailMessage = got.value;
  if (!withBody || signal.aborted) return ok(toSummary(message));
  const body = await messageBody(ctx, message, signal);
  return body.ok ? ok({ ...toSummary(message), ...body.value }) : body;
}

export interface SearchPage {
  messages: Array<MessageSummary & Partial<MessageBody>>;
  /** Gmail's, passed through: the page after this one, if Gmail says there is one. */
  nextPageToken: string | null;
  /** Gmail's `resultSizeEstimate`, passed through (an estimate, not a count). */
  resultSizeEstimate: number | null;
}

/** One messages.list page (`pageToken` continues an earlier one), then its messages fetched concurrently. */
export async function searchPage(
  ctx: ToolContext,
  v: { query: string; max_results: number; include_body: boolean },
  pageToken?: string,
): Promise<Result<SearchPage>> {
  const listed = await callGmail(ctx, { operation: 'gmail.users.messages.list', idempotent: true }, listSchema, (api, options) =>
    api.users.messages.list({ userId: 'me', q: v.query, maxResults: v.max_results, ...(pageToken !== undefined ? { pageToken } : {}) }, options),
  );
  if (!listed.ok) return listed;
  const ids = (listed.value.messages ?? []).slice(0, v.max_results).map((m) => m.id);
  const fetched = await mapBounded(ids, SEARCH_CONCURRENCY, (id, signal) => fetchMessage(ctx, id, v.include_body, signal));
  if (!fetched.ok) return fetched;
  return ok({
    messages: fetched.value.filter((m) => m !== null),
    nextPageToken: listed.value.nextPageToken ?? null,
    resultSizeEstimate: listed.value.resultSizeEstimate ?? null,
  });
}

export const emailSearch = defineTool({
  name: 'email_search',
  version: '1.1.0',
  // Deprecated for email_search@2 (README "Tool versions"): a capped page here reads as the whole answer, and
  // v2 takes the same inputs and answers the same fields plus paging. It still runs, exactly as the contract says.
  lifecycle: { status: 'deprecated', deprecatedAt: '2026-11-23T00:00:00Z', sunsetAt: '2027-05-24T00:00:00Z', replacement: 'email_search@2' },
  description:
    'Search the connected Gmail mailbox with a Gmail query (from:, to:, subject:, has:attachment, newer_than:7d, is:unread, …). ' +
    'Returns the newest matching messages with sender, recipients, subject, snippet, date (ISO 8601 UTC) and whether they have ' +
    'attachments; set include_body to also get each text body. Use email_read for one message in full.',
  integration: 'google_gmail',
  requiredScopes: SCOPES,
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const page = await searchPage(ctx, v);
    return page.ok ? ok({ messages: page.value.messages, total_results: page.value.messages.length }) : page;
  },
});
