import { parseDateBound, relativeBound } from '../../src/gmail/query/bounds';
import { type QueryNode, parseQuery } from '../../src/gmail/query/parse';

/** A compact rendering of the AST: `and(a, or(b, c))`, `from:x`, `"a b"`, `-x`. */
function show(node: QueryNode): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return `${node.kind}(${node.items.map(show).join(', ')})`;
    case 'not':
      return `-${show(node.item)}`;
    case 'term': {
      const v = node.phrase ? `"${node.value}"` : node.value;
      return node.op ? `${node.op}:${v}` : v;
    }
  }
}

describe('Gmail query parsing', () => {
  it.each([
    ['from:ana is:unread', 'and(from:ana, is:unread)'],
    ['a b OR c', 'and(a, or(b, c))'],
    ['from:amy OR from:david OR to:x', 'and(or(from:amy, from:david, to:x))'],
    ['{from:amy from:david} dinner', 'and(or(from:amy, from:david), dinner)'],
    ['dinner -movie', 'and(dinner, -movie)'],
    ['-from:ana -{a b}', 'and(-from:ana, -or(a, b))'],
    ['subject:"quarterly review" budget', 'and(subject:"quarterly review", budget)'],
    ['subject:(dinner movie)', 'and(and(subject:dinner, subject:movie))'],
    ['"exact phrase" AND other', 'and("exact phrase", other)'],
    ['foo:bar http://x.example/a', 'and(foo:bar, http://x.example/a)'],
    ['From:Ana', 'and(from:Ana)'],
    ['rfc822msgid:<abc@x.example>', 'and(rfc822msgid:<abc@x.example>)'],
    ['(unclosed "quote', 'and(and(unclosed, "quote"))'],
    [') stray OR', 'and(stray)'],
    ['', 'and()'],
    ['from: alice', 'and(alice)'],
    ['well-known co-op', 'and(well-known, co-op)'],
  ])('when the query is %p, then it parses as %s', (q, expected) => {
    expect(show(parseQuery(q))).toBe(expected);
  });
});

describe('Gmail query dates', () => {
  it('when after:/before: use a calendar date, then it means midnight in PST (America/Los_Angeles), as the Gmail API documents', () => {
    expect(new Date(parseDateBound('2024/01/15')!).toISOString()).toBe('2024-01-15T08:00:00.000Z');
    expect(new Date(parseDateBound('2024/07/15')!).toISOString()).toBe('2024-07-15T07:00:00.000Z'); // PDT
    expect(new Date(parseDateBound('01/15/2024')!).toISOString()).toBe('2024-01-15T08:00:00.000Z');
  });

  it('when the bound is epoch seconds, then it is taken exactly', () => {
    expect(parseDateBound('1705305600')).toBe(1705305600_000);
  });

  it('when the date is not a date, then there is no bound', () => {
    expect(parseDateBound('yesterday')).toBeUndefined();
    expect(parseDateBound('2024/13/01')).toBeUndefined();
  });

  it('when newer_than: uses d, m or y, then the bound is that far before now', () => {
    const now = Date.UTC(2024, 2, 31, 12);
    expect(relativeBound('2d', now)).toBe(now - 2 * 86_400_000);
    expect(new Date(relativeBound('1m', now)!).toISOString()).toBe('2024-03-02T12:00:00.000Z'); // Feb 31 rolls over, as Date does
    expect(new Date(relativeBound('1y', now)!).toISOString()).toBe('2023-03-31T12:00:00.000Z');
    expect(relativeBound('soon', now)).toBeUndefined();
  });
});
