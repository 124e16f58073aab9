import type { SearchPage } from '../../../src/core/mail';
import { IMMUTABLE_IDS } from '../../../src/providers/microsoft/mail-context';
import { OPERATOR_TABLE } from '../../../src/providers/microsoft/search-operators';
import { DEMO } from '../../helpers/microsoft';
import { type MailWorld, seedAnaMail, startMailWorld } from '../../helpers/outlook-mail';

/**
 * Gmail's query syntax on Outlook, row by row of the operator table, against Ana's mailbox in the sandbox:
 * A 'Q3 plan' from Ben (read), B Ana's 'RE: Q3 plan' in Sent Items, C Ben's 'RE: Q3 plan' (cc Chen, a PDF,
 * unread), D Chen's 'Offsite logistics' (HTML), E IT's 'Scheduled maintenance this weekend' (flagged here),
 * F Ana's 'Budget heads-up' to Chen with Ben in Bcc, G 'Old newsletter' in Deleted Items, H 'You won a prize' in
 * Junk Email, I 'Draft idea' in Drafts. Dates: the demo week of 9 March 2026 (test/helpers/outlook-mail.ts).
 */

let w: MailWorld;
const keys = new Map<string, string>(); // message id → letter
let messageIdOfC = '';

const LETTERS: Record<string, string> = {
  'Q3 plan': 'A',
  'RE: Q3 plan@2026-03-06T11:00:00Z': 'B',
  'RE: Q3 plan@2026-03-07T17:00:00Z': 'C',
  'Offsite logistics': 'D',
  'Scheduled maintenance this weekend': 'E',
  'Budget heads-up': 'F',
  'Old newsletter': 'G',
  'You won a prize': 'H',
  'Draft idea': 'I',
};

beforeAll(async () => {
  w = await startMailWorld();
  await seedAnaMail(w);
  const token = await w.token(DEMO.ana);
  const res = await fetch(`${w.graphUrl}/me/messages?$top=100&$select=id,subject,receivedDateTime,internetMessageId`, {
    headers: { authorization: `Bearer ${token}`, Prefer: IMMUTABLE_IDS },
  });
  for (const m of ((await res.json()) as { value: { id: string; subject: string; receivedDateTime: string; internetMessageId: string }[] }).value) {
    const letter = LETTERS[m.subject] ?? LETTERS[`${m.subject}@${m.receivedDateTime}`];
    if (!letter) throw new Error(`unexpected message ${m.subject}`);
    keys.set(m.id, letter);
    if (letter === 'C') messageIdOfC = m.internetMessageId;
    if (letter === 'E') {
      const flagged = await fetch(`${w.graphUrl}/me/messages/${m.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ flag: { flagStatus: 'flagged' } }),
      });
      expect(flagged.status).toBe(200);
    }
  }
  expect(keys.size).toBe(9);
});
afterAll(() => w.close());
afterEach(async () => {
  await w.control('DELETE', '/faults');
});

const letters = (page: SearchPage) => page.messages.map((m) => keys.get(m.message_id) ?? `?${m.subject}`);
const search = (query: string, options: { maxResults?: number; includeBody?: boolean; pageToken?: string } = {}) =>
  w.mail(DEMO.ana).search(query, {
    maxResults: options.maxResults ?? 50,
    includeBody: options.includeBody ?? false,
    ...(options.pageToken ? { pageToken: options.pageToken } : {}),
  });

/** What each honoured row's example finds, newest first. */
const EXPECTED: Record<string, string[]> = {
  words: ['C'],
  '"…" (phrase)': ['C'],
  '+word': ['D'],
  'from:': ['C', 'A'],
  'to:': ['C', 'F'],
  'cc:': ['C'],
  'bcc:': ['F'],
  'subject:': ['C', 'B', 'A'],
  'filename:': ['C'],
  'OR, { }': ['E', 'D'],
  '-, NOT': ['B'],
  '( )': ['C'],
  'after:': ['E', 'D', 'C'],
  'before:': ['C', 'B', 'A', 'F', 'I'],
  'newer:': ['E', 'D'],
  'older:': ['B', 'A', 'F', 'I'],
  'newer_than:': ['E', 'D'],
  'older_than:': ['B', 'A', 'F', 'I'],
  'is:unread': ['E', 'D', 'C'],
  'is:read': ['A'],
  'is:starred': ['E'],
  'has:attachment': ['C'],
  'in:inbox': ['E', 'D', 'C', 'A'],
  'in:sent': ['B', 'F'],
  'in:drafts': ['I'],
  'in:trash': ['G'],
  'in:spam': ['H'],
  'in:anywhere': ['C', 'B', 'A'],
  'rfc822msgid:': ['C'],
};
const example = (row: (typeof OPERATOR_TABLE)[number]) => (row.operator === 'rfc822msgid:' ? `rfc822msgid:${messageIdOfC}` : row.example);

describe('each row of the operator table, on the sandbox', () => {
  const honoured = OPERATOR_TABLE.filter((r) => !r.refused);
  const refused = OPERATOR_TABLE.filter((r) => r.refused);

  it.each(honoured.map((r) => [r.operator, r] as const))('when an agent searches with %s, then Outlook finds what Gmail would', async (_name, row) => {
    expect(EXPECTED[row.operator]).toBeDefined();
    const page = await search(example(row));
    if (!page.ok) throw new Error(`${row.example}: ${page.error.message}`);
    expect({ query: row.example, found: letters(page.value) }).toEqual({ query: row.example, found: EXPECTED[row.operator] });
  });

  it.each(refused.map((r) => [r.operator, r] as const))(
    'when an agent searches with %s, then VALIDATION_ERROR names it and Graph is not asked',
    async (_name, row) => {
      w.attempts.count = 0;
      const page = await search(row.example);
      expect(page.ok).toBe(false);
      if (page.ok) return;
      expect(page.error.code).toBe('VALIDATION_ERROR');
      const named = row.operator.split(/[,\s]/)[0]!;
      expect(page.error.details).toEqual({ issues: [{ path: 'inputs.query', message: expect.stringContaining(named) }] });
      expect(page.error.message).toContain(named);
      expect(w.attempts.count).toBe(0);
    },
  );
});

describe('what Gmail leaves out, and what Outlook cannot combine', () => {
  it('when no in: is given, then Deleted Items and Junk Email are left out, as in Gmail; in:anywhere and -in: change that', async () => {
    const found = async (q: string) => {
      const page = await search(q);
      if (!page.ok) throw new Error(page.error.message);
      return letters(page.value);
    };
    expect(await found('recap')).toEqual([]);
    expect(await found('in:anywhere recap')).toEqual(['G']);
    expect(await found('prize')).toEqual([]);
    expect(await found('-in:inbox from:ben')).toEqual([]);
    expect(await found('-in:sent subject:q3')).toEqual(['C', 'A']);
    expect(await found('in:sent from:me')).toEqual(['B', 'F']);
    expect(await found('')).toEqual(['E', 'D', 'C', 'B', 'A', 'F', 'I']);
  });

  it.each([
    ['subject:q3 OR is:unread', 'is:unread'],
    ['(from:ben -is:read) OR subject:offsite', 'is:read'],
    ['in:inbox OR from:ben', 'in:inbox'],
    ['in:inbox in:sent', 'in:sent'],
    ['-in:anywhere', 'in:anywhere'],
    ['after:yesterday', 'after:yesterday'],
    ['newer_than:2w', 'newer_than:2w'],
    ['"***"', '***'],
    ['subject:(from:ben)', 'from:'],
  ])('when the query is %s, then it is refused naming %s', async (query, named) => {
    const page = await search(query);
    expect(page.ok ? 'ok' : page.error.code).toBe('VALIDATION_ERROR');
    if (!page.ok) expect(page.error.message).toContain(named);
  });
});

describe('paging', () => {
  it('when a condition search spans pages, then each token continues it, the last page has none, and the count is Graph’s true count', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    const estimates: (number | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const page = await search('before:1772928000', { maxResults: 2, ...(token ? { pageToken: token } : {}) });
      if (!page.ok) throw new Error(page.error.message);
      seen.push(...letters(page.value));
      estimates.push(page.value.resultSizeEstimate);
      if (!page.value.nextPageToken) break;
      token = page.value.nextPageToken;
    }
    expect(seen).toEqual(['C', 'B', 'A', 'F', 'I']);
    expect(estimates).toEqual([5, 5, 5]);
  });

  it('when a text search spans pages, then its skip token is carried, and no count is claimed', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await search('subject:(q3 plan)', { maxResults: 1, ...(token ? { pageToken: token } : {}) });
      if (!page.ok) throw new Error(page.error.message);
      seen.push(...letters(page.value));
      expect(page.value.resultSizeEstimate).toBeNull();
      if (!page.value.nextPageToken) break;
      token = page.value.nextPageToken;
    }
    expect(seen).toEqual(['C', 'B', 'A']);
  });

  it('when a page token is forged, altered, or from another query, then VALIDATION_ERROR at inputs.page_token; it never holds a URL', async () => {
    const first = await search('subject:(q3 plan)', { maxResults: 1 });
    if (!first.ok) throw new Error(first.error.message);
    const token = first.value.nextPageToken!;
    const inside = Buffer.from(token.slice(3), 'base64url').toString('utf8');
    expect(inside).not.toMatch(/https?:|\/v1\.0|graph/i);
    const reject = async (query: string, pageToken: string) => {
      const page = await search(query, { maxResults: 1, pageToken });
      expect(page.ok ? 'ok' : page.error.details).toEqual({ issues: [{ path: 'inputs.page_token', message: expect.any(String) }] });
    };
    await reject('subject:offsite', token);
    await reject('subject:(q3 plan)', 'not-a-token');
    const parts = JSON.parse(inside) as unknown[];
    await reject('subject:(q3 plan)', `o1.${Buffer.from(JSON.stringify(['s', 'AAAAAAAAAAAAAAAA', ...parts.slice(2)])).toString('base64url')}`);
    parts[4] = Buffer.from('https://evil.example/steal').toString('base64url');
    await reject('subject:(q3 plan)', `o1.${Buffer.from(JSON.stringify(parts)).toString('base64url')}`);
    parts[0] = 'f';
    await reject('subject:(q3 plan)', `o1.${Buffer.from(JSON.stringify(parts)).toString('base64url')}`);
  });
});

describe('hostile queries', () => {
  it.each([
    ['a phrase holding KQL', 'subject:"x OR from:ben"', []],
    ['a phrase holding backslashes', '"numbers\\ OR \\q3"', []],
    ['KQL operators as words', 'NEAR ONEAR XRANK numbers', []],
    ['a wildcard', 'num*', []],
    ['parentheses in a phrase', '"(draft) numbers)"', ['C']],
    ['a colon that is no operator', 'foo:numbers', []],
  ])('when the query holds %s, then it means only what it says (%s)', async (_name, query, expected) => {
    const page = await search(query);
    if (!page.ok) throw new Error(page.error.message);
    expect(letters(page.value)).toEqual(expected);
  });

  it.each([
    ['an OData quote in a Message-ID', "rfc822msgid:<a')or(true@x>"],
    ['an OData expression as a date', "before:2026/03/08')or(true"],
    ['an open quote', 'subject:"open'],
    ['an open group', '((from:ben'],
    ['a stray closing bracket', 'from:ben)'],
    ['an empty group', '()'],
    ['OR alone', 'OR'],
    ['groups 40 deep', `${'('.repeat(40)}ben${')'.repeat(40)}`],
    ['2,049 characters', 'a'.repeat(2049)],
  ])('when the query holds %s, then VALIDATION_ERROR and Graph is not asked', async (_name, query) => {
    w.attempts.count = 0;
    const page = await search(query);
    expect(page.ok ? 'ok' : page.error.code).toBe('VALIDATION_ERROR');
    expect(w.attempts.count).toBe(0);
  });

  it('when the query is 2,048 characters of terms, then it is searched', async () => {
    const query = `${'from:ben '.repeat(227)}ben`;
    expect(query.length).toBe(2046);
    const page = await search(query);
    if (!page.ok) throw new Error(page.error.message);
    expect(letters(page.value)).toEqual(['C', 'A']);
  });
});

describe('bodies and failures', () => {
  it('when bodies are asked for, then text bodies come as written and HTML as the Hub’s text, cut with `truncated`', async () => {
    const page = await search('subject:(q3 plan) OR subject:offsite', { includeBody: true });
    if (!page.ok) throw new Error(page.error.message);
    const byLetter = Object.fromEntries(page.value.messages.map((m) => [keys.get(m.message_id), m]));
    expect(byLetter.A!.body).toBe('Ana, can we lock the Q3 targets this week? Ben');
    expect(byLetter.D!.body).toContain('Train at 08:10');
    expect(byLetter.D!.body).not.toContain('<');
    expect(byLetter.C).toMatchObject({ from: 'ben@northwind.example', to: ['ana@northwind.example'], has_attachments: true, date: '2026-03-07T17:00:00Z' });
    const short = await w.mail(DEMO.ana, { maxBodyChars: 10 }).search('subject:offsite', { maxResults: 5, includeBody: true });
    if (!short.ok) throw new Error(short.error.message);
    expect(short.value.messages[0]).toMatchObject({ truncated: true });
    expect(short.value.messages[0]!.body!.length).toBeLessThanOrEqual(10);
  });

  it('when Graph throttles the search, then RATE_LIMITED with Graph’s Retry-After', async () => {
    await w.control('POST', '/faults', { operation: 'messages.list', status: 429, code: 'ApplicationThrottled', retry_after_s: 7, times: 1 });
    const page = await search('from:ben');
    expect(page.ok ? 'ok' : { code: page.error.code, retryAfterS: page.error.retryAfterS }).toEqual({ code: 'RATE_LIMITED', retryAfterS: 7 });
  });

  it('when Graph refuses the request as malformed, then the query is the agent’s to change: VALIDATION_ERROR at inputs.query', async () => {
    await w.control('POST', '/faults', { operation: 'messages.list', status: 400, code: 'BadRequest', message: 'Syntax error', times: 1 });
    const page = await search('from:ben');
    expect(page.ok ? 'ok' : page.error.details).toEqual({ issues: [{ path: 'inputs.query', message: expect.stringContaining('Outlook refused') }] });
  });
});
