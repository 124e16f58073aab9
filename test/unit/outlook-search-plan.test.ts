import { gmailDate } from '../../src/providers/microsoft/search-operators';
import { decodePageToken, encodePageToken } from '../../src/providers/microsoft/search-page-token';
import { KQL_ANCHOR, SearchRefusal, filterOf, needsOwnAddress, planSearch } from '../../src/providers/microsoft/search-plan';
import { QuerySyntaxError, parseQuery } from '../../src/providers/microsoft/search-query';

/** Gmail's query syntax read and planned for Graph, without Graph: the tree, the request, the refusals, the tokens. */

const NOW = Date.parse('2026-03-11T12:00:00Z');
const plan = (q: string) => planSearch(q, { now: NOW, ownAddress: 'ana@northwind.example' });
const kql = (q: string) => plan(q).kql;
const refusal = (q: string) => {
  try {
    plan(q);
  } catch (err) {
    if (err instanceof SearchRefusal) return err.message;
    throw err;
  }
  return 'planned';
};

describe('reading Gmail syntax', () => {
  it('when OR sits among implicit ANDs, then it binds tighter, as Gmail reads `a b OR c`', () => {
    expect(parseQuery('a b OR c')).toEqual({
      kind: 'and',
      items: [
        { kind: 'text', value: 'a', phrase: false },
        {
          kind: 'or',
          items: [
            { kind: 'text', value: 'b', phrase: false },
            { kind: 'text', value: 'c', phrase: false },
          ],
        },
      ],
    });
  });

  it('when operators are in capitals, groups follow them, or words look like operators, then they read as Gmail reads them', () => {
    expect(parseQuery('FROM:Ben')).toEqual({ kind: 'op', name: 'from', value: 'Ben', phrase: false });
    expect(parseQuery('subject:{a b}')).toEqual({
      kind: 'or',
      items: [
        { kind: 'op', name: 'subject', value: 'a', phrase: false },
        { kind: 'op', name: 'subject', value: 'b', phrase: false },
      ],
    });
    expect(parseQuery('a or b')).toEqual({
      kind: 'and',
      items: ['a', 'or', 'b'].map((value) => ({ kind: 'text', value, phrase: false })),
    });
    expect(parseQuery('NOT +word -"a phrase"')).toEqual({
      kind: 'and',
      items: [
        { kind: 'not', item: { kind: 'text', value: 'word', phrase: false } },
        { kind: 'not', item: { kind: 'text', value: 'a phrase', phrase: true } },
      ],
    });
    expect(parseQuery('rfc822msgid:<a@b>')).toEqual({ kind: 'op', name: 'rfc822msgid', value: '<a@b>', phrase: false });
    expect(parseQuery('10:30')).toEqual({ kind: 'text', value: '10:30', phrase: false });
  });

  it.each(['"open', '(a', 'a)', '{a', '()', 'OR b', 'a OR', 'from:', `${'('.repeat(33)}a${')'.repeat(33)}`, 'x'.repeat(2049)])(
    'when the query is %s, then it cannot be read and says why',
    (q) => {
      expect(() => parseQuery(q)).toThrow(QuerySyntaxError);
    },
  );
});

describe('planning for Graph', () => {
  it('when terms are text, then one $search whose values are each one phrase, joined by explicit AND', () => {
    expect(kql('from:ben subject:"q3 plan"')).toBe('from:"ben" AND subject:"q3 plan"');
    expect(kql('budget')).toBe('("budget" OR participants:"budget" OR attachment:"budget")');
    expect(kql('to:me')).toBe('recipients:"ana@northwind.example"');
  });

  it('when a value holds quotes, backslashes, wildcards or KQL operators, then it stays one phrase that cannot end early', () => {
    expect(kql('subject:"a\\ \\"')).toBe('subject:"a"');
    expect(kql('subject:"a\\ b" OR from:x')).toBe('subject:"a b" OR from:"x"');
    expect(refusal('subject:"a\\" OR from:x"')).toContain('quote');
    expect(kql('subject:"x OR from:ben"')).toBe('subject:"x OR from:ben"');
    expect(kql('subject:serv*')).toBe('subject:"serv"');
    expect(kql('subject:"NEAR(3) XRANK(cb=1)"')).toBe('subject:"NEAR(3) XRANK(cb=1)"');
  });

  it('when a query only excludes, then KQL gets an anchor every message meets, since it needs something to include', () => {
    expect(kql('-from:ben')).toBe(`${KQL_ANCHOR} AND NOT from:"ben"`);
    expect(kql('-from:ben -subject:x')).toBe(`${KQL_ANCHOR} AND NOT from:"ben" AND NOT subject:"x"`);
    expect(kql('from:ben -subject:x')).toBe('from:"ben" AND NOT subject:"x"');
  });

  it('when a query holds only conditions, then a $filter with every NOT pushed into the comparisons', () => {
    const filter = (q: string) => filterOf(plan(q).filter!);
    expect(plan('is:unread').mode).toBe('filter');
    expect(filter('-is:unread')).toBe('isRead ne false');
    expect(filter('-(is:unread OR has:attachment)')).toBe('isRead ne false and hasAttachments ne true');
    expect(filter('is:starred OR -after:2026/03/07')).toBe("flag/flagStatus eq 'flagged' or receivedDateTime le 2026-03-07T08:00:00Z");
    expect(filter('rfc822msgid:abc@example.com')).toBe("internetMessageId eq '<abc@example.com>'");
  });

  it('when text and read state meet, then read state stands alone for the Hub to check, or the query is refused', () => {
    expect(plan('subject:x is:unread')).toMatchObject({
      mode: 'search',
      kql: 'subject:"x"',
      local: { kind: 'cond', cond: { path: 'isRead', op: 'eq', value: false } },
    });
    expect(refusal('subject:x OR is:unread')).toContain('is:unread');
  });

  it('when in: is used, then it picks the folder; without it Deleted Items and Junk Email are left out', () => {
    expect(plan('in:sent from:me')).toMatchObject({ folder: 'sentitems', exclude: [] });
    expect(plan('from:ben')).toMatchObject({ folder: null, exclude: ['deleteditems', 'junkemail'] });
    expect(plan('in:anywhere from:ben')).toMatchObject({ folder: null, exclude: [] });
    expect(plan('-in:inbox from:ben')).toMatchObject({ folder: null, exclude: ['inbox', 'deleteditems', 'junkemail'] });
    expect(refusal('in:inbox OR from:ben')).toContain('in:inbox');
  });

  it('when an operator has no Outlook counterpart, then the refusal names it; an unknown name is text, as in Gmail', () => {
    expect(refusal('label:clients')).toContain('label:');
    expect(refusal('plan AROUND 3 numbers')).toContain('AROUND');
    expect(refusal("rfc822msgid:<a'b@c>")).toContain('rfc822msgid');
    expect(kql('mailto:ben')).toBe('("mailto:ben" OR participants:"mailto:ben" OR attachment:"mailto:ben")');
  });

  it('when `me` is an address, then the account is looked up first', () => {
    expect(needsOwnAddress('from:me')).toBe(true);
    expect(needsOwnAddress('subject:(x) OR to:ME')).toBe(true);
    expect(needsOwnAddress('me')).toBe(false);
    expect(needsOwnAddress('(((')).toBe(false);
  });

  it('when dates are written as Gmail writes them, then midnight Pacific time (PST or PDT), or exact seconds', () => {
    expect(new Date(gmailDate('2026/01/15')!).toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(new Date(gmailDate('07/04/2026')!).toISOString()).toBe('2026-07-04T07:00:00.000Z');
    expect(gmailDate('1388552400')).toBe(1388552400000);
    expect(gmailDate('2026/02/30')).toBeUndefined();
    expect(gmailDate('yesterday')).toBeUndefined();
  });
});

describe('page tokens', () => {
  it('when a token is made and read back with its query, then it carries the position, mode and instant; otherwise it is refused', () => {
    const token = encodePageToken('from:ben', { mode: 'search', now: NOW, continuation: { param: '$skiptoken', value: 'b2Zmc2V0OjU' } });
    expect(token).toMatch(/^o1\.[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token, 'from:ben')).toEqual({
      ok: true,
      state: { mode: 'search', now: NOW, continuation: { param: '$skiptoken', value: 'b2Zmc2V0OjU' } },
    });
    expect(decodePageToken(token, 'from:chen')).toEqual({ ok: false, problem: 'a page token from a search with a different query' });
    for (const bad of ['', 'o1.', 'o1.!!!', `o2.${token.slice(3)}`, `o1.${Buffer.from('[1,2,3]').toString('base64url')}`]) {
      expect(decodePageToken(bad, 'from:ben').ok).toBe(false);
    }
    const skip = encodePageToken('x', { mode: 'filter', now: NOW, continuation: { param: '$skip', value: '20' } });
    expect(decodePageToken(skip, 'x')).toMatchObject({ ok: true, state: { continuation: { param: '$skip', value: '20' } } });
  });
});
