import { z } from 'zod';
import { type Result, ok } from '../../core/errors';
import type { SearchPage } from '../../core/mail';
import type { Permission } from '../../core/capabilities';
import { type ToolContext, defineTool } from '../types';
import { providerInput } from '../provider-input';
import { bodyDegradedField, dateField, messageFields, truncatedField } from './result-fields';

/** messages.list with a query needs content access: gmail.metadata refuses `q`. */
const PERMISSIONS: readonly Permission[] = ['mail.read'];

/** The contract's inputs; email_search@2 adds `page_token`. */
export const searchInputFields = {
  query: z
    .string()
    .max(2048)
    .describe(
      'Search query in Gmail\'s syntax (on Outlook the Hub translates it, refusing an operator Outlook lacks), e.g. "from:john@example.com subject:proposal newer_than:7d". Empty matches all mail.',
    ),
  max_results: z.number().int().min(1).max(100).default(10).describe('How many messages to return, newest first (1–100, default 10).'),
  include_body: z.boolean().default(false).describe("Also return each message's text body (default false; bodies can be long)."),
  provider: providerInput.optional(),
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

/** One page of the search through the mail port (`pageToken` continues an earlier one). */
export const searchPage = (
  ctx: ToolContext,
  v: { query: string; max_results: number; include_body: boolean },
  pageToken?: string,
): Promise<Result<SearchPage>> =>
  ctx.mail.search(v.query, { maxResults: v.max_results, includeBody: v.include_body, ...(pageToken !== undefined ? { pageToken } : {}) });

export const emailSearch = defineTool({
  name: 'email_search',
  version: '1.2.0',
  // Deprecated for email_search@2 (README "Tool versions"): a capped page here reads as the whole answer, and
  // v2 takes the same inputs and answers the same fields plus paging. It still runs, exactly as the contract says.
  lifecycle: { status: 'deprecated', deprecatedAt: '2026-11-23T00:00:00Z', sunsetAt: '2027-05-24T00:00:00Z', replacement: 'email_search@2' },
  description:
    'Search the connected mailbox (Gmail or Outlook) with a Gmail-syntax query (from:, to:, subject:, has:attachment, newer_than:7d, is:unread, …). ' +
    'Returns the newest matching messages with sender, recipients, subject, snippet, date (ISO 8601 UTC) and whether they have ' +
    'attachments; set include_body to also get each text body. Use email_read for one message in full.',
  capability: 'mail',
  permissions: PERMISSIONS,
  sideEffects: 'reads',
  input,
  output,
  run: async (ctx, v): Promise<Result<Output>> => {
    const page = await searchPage(ctx, v);
    return page.ok ? ok({ messages: page.value.messages, total_results: page.value.messages.length }) : page;
  },
});
