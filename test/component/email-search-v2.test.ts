import { emailSearch } from '../../src/tools/email/search';
import { emailSearchV2 } from '../../src/tools/email/search-v2';
import { sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { ANA, expectTool, twoConnectedMailboxes } from '../helpers/email';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * email_search@2 against the sandbox's Gmail: pages through next_page_token / page_token, Gmail's
 * resultSizeEstimate passed through beside total_results (and the sandbox's estimate is Gmail's placeholder, not
 * a count), a token from another query refused as the agent's mistake; email_search@1 still answers exactly the
 * contract, deprecated in favour of @2.
 */

const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

const JOHN = 'john@example.com';
const fromJohn = (i: number) => ({
  from: JOHN,
  to: [ANA.email],
  subject: `Update ${i}`,
  text: `Update number ${i}`,
  date: `2027-01-${String(10 + i).padStart(2, '0')}T09:00:00Z`,
});
const FIVE = [1, 2, 3, 4, 5].map(fromJohn);
const other = { from: 'jane@example.com', to: [ANA.email], subject: 'Lunch', text: 'no', date: '2027-01-20T09:00:00Z' };

describe('email_search@2', () => {
  it('when results span pages, then next_page_token walks them newest first without repeats, and the last page says null', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [...FIVE, other] });
    const requests = await sandboxRequestsFrom(sb);
    const subjects: string[] = [];
    let pageToken: string | undefined;
    const pages: Array<Record<string, unknown>> = [];
    do {
      const res = await expectTool(hub, ana, 'email_search@2', { query: `from:${JOHN}`, max_results: 2, ...(pageToken ? { page_token: pageToken } : {}) });
      expect(emailSearchV2.output.safeParse(res.body.result).success).toBe(true);
      expect(res.body.metadata.tool_version).toBe('2.1.0');
      expect(res.headers.deprecation).toBeUndefined();
      pages.push(res.body.result);
      subjects.push(...res.body.result.messages.map((m: { subject: string }) => m.subject));
      pageToken = res.body.result.next_page_token ?? undefined;
    } while (pageToken && pages.length < 10);
    expect(subjects).toEqual(['Update 5', 'Update 4', 'Update 3', 'Update 2', 'Update 1']);
    expect(pages.map((p) => [p.total_results, p.next_page_token === null])).toEqual([
      [2, false],
      [2, false],
      [1, true],
    ]);
    // Gmail's estimate is passed through as Gmail gives it: here its placeholder, never the count of 5.
    expect(pages.map((p) => p.result_size_estimate)).toEqual([201, 201, 201]);
    const lists = (await requests()).filter((r) => r.operation === 'gmail.users.messages.list');
    expect(lists).toHaveLength(3);
  });

  it('when nothing matches, then no messages, estimate 0 and no next page', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: FIVE });
    const res = await expectTool(hub, ana, 'email_search@2', { query: 'from:nobody@example.com' });
    expect(res.body.result).toEqual({ messages: [], total_results: 0, result_size_estimate: 0, next_page_token: null });
    expect(res.body.metadata.api_calls).toBe(1);
  });

  it('when a page_token comes from a search with another query, then VALIDATION_ERROR names inputs.page_token', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: [...FIVE, other] });
    const first = await expectTool(hub, ana, 'email_search@2', { query: `from:${JOHN}`, max_results: 2 });
    const res = await expectTool(hub, ana, 'email_search@2', { query: 'from:jane@example.com', page_token: first.body.result.next_page_token }, 400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'inputs.page_token' }] } });
    const junk = await expectTool(hub, ana, 'email_search@2', { query: `from:${JOHN}`, page_token: 'has spaces' }, 400);
    expect(junk.body.error.details.issues[0].path).toBe('inputs.page_token');
  });

  it('when called by the bare name, then version 2 answers (a superset of the contract)', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: FIVE });
    const res = await expectTool(hub, ana, 'email_search', { query: `from:${JOHN}`, max_results: 10 });
    expect(res.body.metadata.tool_version).toBe('2.1.0');
    expect(res.body.result).toMatchObject({ total_results: 5, result_size_estimate: 201, next_page_token: null });
  });
});

describe('email_search@1', () => {
  it('when pinned to @1, then the answer is exactly the contract shape, marked deprecated in favour of @2', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: FIVE });
    const res = await expectTool(hub, ana, 'email_search@1', { query: `from:${JOHN}`, max_results: 2, include_body: false });
    expect(emailSearch.output.safeParse(res.body.result).success).toBe(true);
    expect(Object.keys(res.body.result).sort()).toEqual(['messages', 'total_results']);
    expect(res.body.result.total_results).toBe(2);
    expect(Object.keys(res.body.result.messages[0]).sort()).toEqual(['date', 'from', 'has_attachments', 'message_id', 'snippet', 'subject', 'thread_id', 'to']);
    expect(res.body.metadata).toMatchObject({ tool_version: '1.2.0', deprecation: { replacement: 'email_search@2', sunset_at: '2027-05-24T00:00:00.000Z' } });
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-11-23T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Mon, 24 May 2027 00:00:00 GMT');
  });

  it('when @1 is given a page_token, then it is refused as an unknown input (v1 is the contract, unchanged)', async () => {
    const { ana } = await twoConnectedMailboxes(hub, sb, { ana: FIVE });
    const res = await expectTool(hub, ana, 'email_search@1', { query: '', page_token: '12345678901234567890' }, 400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});
