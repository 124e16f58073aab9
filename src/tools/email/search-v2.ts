import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import { defineTool } from '../types';
import { searchInputFields, searchPage, searchSummary } from './search';

/**
 * email_search@2: the contract's search plus paging. `page_token` in continues a search where the previous answer's
 * `next_page_token` left off; `result_size_estimate` is Gmail's own `resultSizeEstimate`, passed through.
 *
 * Gmail documents that number only as "Estimated total number of results" (users.messages.list), and it is
 * publicly measured as no count at all: 201 for every non-empty query whatever the true size (openclaw/gogcli#983:
 * 201 against true counts of 3–21 at maxResults 1, 10 and 100; postalsys/emailengine#425: 201 on each page of a
 * 495-message folder). So the Hub neither trusts nor "fixes" it; `next_page_token` is what says more exist.
 */

/** Gmail's page tokens are 20 digits; anything printable up to this length is passed on for Gmail to judge. */
const PAGE_TOKEN = /^[\x21-\x7E]{1,512}$/;

const input = z.strictObject({
  ...searchInputFields,
  max_results: searchInputFields.max_results.describe('How many messages to return on this page, newest first (1–100, default 10).'),
  page_token: z
    .string()
    .regex(PAGE_TOKEN, 'must be a next_page_token returned by email_search@2')
    .optional()
    .describe('Continue a search: the next_page_token of the previous answer, with the same query.'),
});

const output = z.object({
  messages: z.array(searchSummary),
  total_results: z.number().int().describe('Number of messages returned on this page.'),
  result_size_estimate: z
    .number()
    .int()
    .nullable()
    .describe(
      "Gmail's own estimate of all matches. Not a count: Gmail answers 201 for small and large results alike. Use next_page_token to know whether more exist.",
    ),
  next_page_token: z.string().nullable().describe('Pass as page_token (with the same query) for the next page; null when this is the last page.'),
});
type Output = z.output<typeof output>;

export const emailSearchV2 = defineTool({
  name: 'email_search',
  version: '2.1.0',
  description:
    'Search the connected mailbox (Gmail or Outlook) with a Gmail-syntax query (from:, to:, subject:, has:attachment, newer_than:7d, is:unread, …), ' +
    'one page at a time. Returns the newest matching messages with sender, recipients, subject, snippet, date (ISO 8601 UTC) ' +
    'and whether they have attachments, plus next_page_token: when it is not null there are more matches — call again with ' +
    'page_token set to it and the same query. A page without a next_page_token is the end; an answer with fewer messages ' +
    "than max_results but a next_page_token is not. result_size_estimate is Gmail's rough estimate, not a count.",
  capability: 'mail',
  permissions: ['mail.read'],
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const page = await searchPage(ctx, v, v.page_token);
    if (!page.ok) return page; // a page_token Gmail did not issue: VALIDATION_ERROR at inputs.page_token (the port's rule)
    const { messages, nextPageToken, resultSizeEstimate } = page.value;
    return ok({ messages, total_results: messages.length, result_size_estimate: resultSizeEstimate, next_page_token: nextPageToken });
  },
});
