import type { MessageBody, MessageSummary, SearchOptions, SearchPage } from '../../core/mail';
import { type Result, ok } from '../../core/errors';
import { mapBounded } from '../../tools/email/concurrency';
import { type GoogleMailDeps, callGmail } from './gmail-request';
import { toSummary } from './gmail-map';
import { messageBody } from './gmail-message-body';
import { type GmailMessage, listSchema, messageSchema } from './gmail-schemas';

/**
 * How many messages.get requests one search starts at once. The binding limit is elsewhere: every Gmail request
 * of a mailbox waits for a place under HUB_GMAIL_MAX_IN_FLIGHT (src/protection/mailbox-gate.ts, then across
 * replicas src/protection/shared-mailbox-slots.ts; Gmail refuses
 * too many concurrent requests per user with 429s) and pays its quota units first. 50 only bounds how many
 * waiters one search queues there (at most 100 results, so at most two such batches).
 */
export const SEARCH_CONCURRENCY = 50;

/** `signal` aborts once the search's answer is decided (another message failed): the body is not worked on. */
async function fetchMessage(
  deps: GoogleMailDeps,
  id: string,
  withBody: boolean,
  signal: AbortSignal,
): Promise<Result<(MessageSummary & Partial<MessageBody>) | null>> {
  // format=full: only the parts tell exactly whether a message has attachments (metadata has no parts).
  const got = await callGmail(deps, { operation: 'gmail.users.messages.get', idempotent: true }, messageSchema, (api, options) =>
    api.users.messages.get({ userId: 'me', id, format: 'full' }, options),
  );
  // Deleted between the list and the get: it is simply no longer a result.
  if (!got.ok) return got.error.code === 'RESOURCE_NOT_FOUND' ? ok(null) : got;
  const message: GmailMessage = got.value;
  if (!withBody || signal.aborted) return ok(toSummary(message));
  const body = await messageBody(deps, message, signal);
  return body.ok ? ok({ ...toSummary(message), ...body.value }) : body;
}

/**
 * One messages.list page (`pageToken` continues an earlier one) with the query as Gmail reads it, then its
 * messages fetched concurrently. `nextPageToken` and `resultSizeEstimate` are Gmail's, passed through.
 */
export async function searchPage(deps: GoogleMailDeps, query: string, options: SearchOptions, _signal?: AbortSignal): Promise<Result<SearchPage>> {
  const { maxResults, includeBody, pageToken } = options;
  const listed = await callGmail(deps, { operation: 'gmail.users.messages.list', idempotent: true }, listSchema, (api, o) =>
    api.users.messages.list({ userId: 'me', q: query, maxResults, ...(pageToken !== undefined ? { pageToken } : {}) }, o),
  );
  if (!listed.ok) return listed;
  const ids = (listed.value.messages ?? []).slice(0, maxResults).map((m) => m.id);
  const fetched = await mapBounded(ids, SEARCH_CONCURRENCY, (id, signal) => fetchMessage(deps, id, includeBody, signal));
  if (!fetched.ok) return fetched;
  return ok({
    messages: fetched.value.filter((m) => m !== null),
    nextPageToken: listed.value.nextPageToken ?? null,
    resultSizeEstimate: listed.value.resultSizeEstimate ?? null,
  });
}
