import { evaluate, filterPaths, parseFilter } from '../src/graph/filter';
import { parseKql } from '../src/graph/kql';
import { kqlMatches } from '../src/graph/kql-match';

/** The $filter and $search readers on their own: what they accept, what they refuse, what they match. */

const message = {
  subject: "Ana's Q3 plan",
  isRead: false,
  importance: 'high',
  receivedDateTime: '2026-02-20T10:00:00Z',
  from: { emailAddress: { address: 'ben@contoso.example', name: 'Ben' } },
  toRecipients: [{ emailAddress: { address: 'ana@contoso.example' } }, { emailAddress: { address: 'chen@contoso.example' } }],
};

test('when a filter combines comparisons, functions, not and any(), then it matches as OData says', () => {
  const cases: [string, boolean][] = [
    ["subject eq 'Ana''s Q3 plan'", true],
    ["isRead eq false and importance eq 'high'", true],
    ['receivedDateTime ge 2026-02-20T00:00:00Z and receivedDateTime lt 2026-02-21T00:00:00Z', true],
    ["not (isRead eq false) or contains(subject, 'q3')", true],
    ["startswith(from/emailAddress/address, 'ben@')", true],
    ["toRecipients/any(r: r/emailAddress/address eq 'chen@contoso.example')", true],
    ["toRecipients/any(r:r/emailAddress/address eq 'dora@contoso.example')", false],
    ['isRead', false],
  ];
  for (const [filter, expected] of cases) {
    const e = parseFilter(filter);
    if ('code' in e) throw new Error(`${filter}: ${e.message}`);
    expect({ filter, matched: evaluate(e, message) }).toEqual({ filter, matched: expected });
  }
  const e = parseFilter("receivedDateTime ge 2026-01-01T00:00:00Z and toRecipients/any(r: r/emailAddress/address eq 'x') and isRead eq true");
  expect('code' in e ? [] : filterPaths(e)).toEqual(['receivedDateTime', 'toRecipients', 'isRead']);
});

test('when a filter is malformed, then a 400 BadRequest names it instead of a guess', () => {
  for (const bad of ["subject eq 'open", 'isRead eq', '(isRead eq true', "subject eq 'a' junk", 'contains(subject)']) {
    const e = parseFilter(bad);
    expect({ bad, code: 'code' in e ? e.code : 'parsed' }).toEqual({ bad, code: 'BadRequest' });
  }
});

const searchable = {
  from: 'Ben Okafor ben@contoso.example',
  to: 'Ana Lima ana@contoso.example',
  cc: '',
  bcc: '',
  subject: 'Q3 plan',
  body: 'Draft numbers attached for the planning round',
  attachmentNames: 'q3-targets.pdf',
  hasAttachments: true,
  importance: 'normal',
  received: Date.parse('2026-02-20T10:00:00Z'),
  sent: Date.parse('2026-02-20T09:59:00Z'),
  size: 4096,
};
const hit = (q: string) => {
  const parsed = parseKql(q);
  if ('code' in parsed) throw new Error(`${q}: ${parsed.message}`);
  return kqlMatches(parsed, searchable);
};

test('when a search names properties, quotes phrases or uses OR, then each term must hold', () => {
  expect(hit('"numbers"')).toBe(true);
  expect(hit('"from:ben subject:q3"')).toBe(true);
  expect(hit('"from:chen"')).toBe(false);
  expect(hit('"from:chen OR to:ana"')).toBe(true);
  expect(hit('"subject:\\"Q3 plan\\""')).toBe(true);
  expect(hit('"hasAttachments:true attachment:q3-targets.pdf"')).toBe(true);
  expect(hit('"attachment:pdf"')).toBe(true);
  expect(hit('"received:2026-02-20"')).toBe(true);
  expect(hit('"received:02/20/2026"')).toBe(true);
  expect(hit('"received:2026-02-21"')).toBe(false);
});

test('when KQL words are matched, then whole words match and only a trailing * matches a prefix', () => {
  expect(hit('"plan"')).toBe(true);
  expect(hit('"pla"')).toBe(false);
  expect(hit('"pla*"')).toBe(true);
  expect(hit('"from:okafor"')).toBe(true);
  expect(hit('"from:oka"')).toBe(false);
  expect(hit('"body:\\"planning round\\""')).toBe(true);
  expect(hit('"body:\\"round planning\\""')).toBe(false);
});

test('when KQL uses NOT, -, parentheses, explicit AND and date comparisons, then it evaluates as the syntax reference says', () => {
  expect(hit('"subject:q3 NOT from:ben"')).toBe(false);
  expect(hit('"subject:q3 -from:chen"')).toBe(true);
  expect(hit('"(from:chen OR from:ben) AND subject:q3"')).toBe(true);
  expect(hit('"from:chen OR (from:ben AND subject:budget)"')).toBe(false);
  expect(hit('"received>=2026-02-20T10:00:00Z received<2026-02-20T10:00:01Z"')).toBe(true);
  expect(hit('"received>2026-02-20"')).toBe(false);
  expect(hit('"received:2026-02-19..2026-02-20"')).toBe(true);
  expect(hit('"size>1000 size<5000"')).toBe(true);
  expect(hit('"NOT subject:budget"')).toBe(true);
  // Operators are uppercase only: "or" is a word here, and the message has no "or" in from, subject or body.
  expect(hit('"from:chen or to:ana"')).toBe(false);
});

test('when one property is repeated without AND, then KQL takes the union; an explicit AND keeps both conditions', () => {
  expect(hit('"from:chen from:ben"')).toBe(true);
  expect(hit('"from:chen AND from:ben"')).toBe(false);
});

test('when a search value is unquoted, malformed or empty, then Graph refuses it with 400', () => {
  for (const bad of ['budget 2026', '"subject:"open"', '"(from:ben"', '"AND OR"', '""', `"${'('.repeat(100)}x${')'.repeat(100)}"`]) {
    const parsed = parseKql(bad);
    expect({ bad, status: 'code' in parsed ? parsed.status : 200 }).toEqual({ bad, status: 400 });
  }
  expect('code' in parseKql('pizza')).toBe(false);
});
