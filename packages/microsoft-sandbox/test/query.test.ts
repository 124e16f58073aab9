import { evaluate, filterPaths, parseFilter } from '../src/graph/filter';
import { parseSearch, searchMatches } from '../src/graph/mail-query';

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

test('when a search names properties, quotes phrases or uses OR, then each term must hold', () => {
  const m = {
    from: 'Ben ben@contoso.example',
    to: 'Ana ana@contoso.example',
    cc: '',
    bcc: '',
    subject: 'Q3 plan',
    body: 'Draft numbers attached',
    attachmentNames: 'q3.pdf',
    hasAttachments: true,
    importance: 'normal',
    received: Date.parse('2026-02-20T10:00:00Z'),
    sent: Date.parse('2026-02-20T09:59:00Z'),
  };
  const hit = (q: string) => searchMatches(parseSearch(q), m);
  expect(hit('"numbers"')).toBe(true);
  expect(hit('"from:ben subject:q3"')).toBe(true);
  expect(hit('"from:chen"')).toBe(false);
  expect(hit('"from:chen OR to:ana"')).toBe(true);
  expect(hit('"subject:\\"Q3 plan\\""'.replace(/\\/g, ''))).toBe(true);
  expect(hit('"hasAttachments:true attachment:q3.pdf"')).toBe(true);
  expect(hit('"received:2026-02-20"')).toBe(true);
  expect(hit('"received:2026-02-21"')).toBe(false);
});
