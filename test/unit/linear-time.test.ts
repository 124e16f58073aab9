import { headerAddresses } from '../../src/tools/email/addresses';
import { charsetOf } from '../../src/providers/google/gmail-body';
import { snippetText } from '../../src/providers/google/gmail-map';
import { baseSubject, messageIds } from '../../src/tools/email/threading';
import { planSearch } from '../../src/providers/microsoft/search-plan';

/**
 * Every pattern applied to what a mail sender or an agent controls must cost time linear in its input. Each
 * case feeds ~100–200 KB shaped to make a backtracking regex try every split (runs of the characters it
 * repeats, openers without closers) and allows a CPU budget a quadratic implementation misses by orders of
 * magnitude (the reply-prefix regex took 160 ms for 20,000 spaces). The Google sandbox's own text handling has
 * the same test in its package (packages/google-sandbox/test/unit/linear-time.test.ts).
 */
const cpuMs = (fn: () => void) => {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
};

const BUDGET_MS = 50;

const cases: [string, () => unknown][] = [
  ['reply prefix then a long run of spaces', () => baseSubject(`re${' '.repeat(200_000)}x`)],
  ['thousands of reply prefixes', () => baseSubject('Re: '.repeat(50_000))],
  ['snippet entities without semicolons', () => snippetText(`&${'a'.repeat(200_000)}${'&#x1'.repeat(20_000)}`)],
  ['charset parameter noise', () => charsetOf({ headers: [{ name: 'Content-Type', value: `text/html${'; charset'.repeat(20_000)}${' '.repeat(50_000)}` }] })],
  ['message ids: < without >', () => messageIds('<a'.repeat(100_000))],
  ['address header: a long list of junk', () => headerAddresses('"a, <b@c'.repeat(20_000))],
  // A search query is at most 2,048 characters; these are the shapes that cost most within that.
  ['Outlook search: a chain of ORs', () => planSearch(`${'a OR '.repeat(409)}a`, { now: 0, ownAddress: null })],
  ['Outlook search: subject groups of many words', () => planSearch(`subject:(${'w '.repeat(1000)})`, { now: 0, ownAddress: null })],
  ['Outlook search: a value of quotes and backslashes', () => planSearch(`"${'\\*'.repeat(680)}x"`, { now: 0, ownAddress: null })],
];

describe('linear-time text handling', () => {
  it.each(cases)('when the input is %s, then it is handled within the CPU budget', (_name, run) => {
    expect(cpuMs(() => run())).toBeLessThan(BUDGET_MS);
  });

  it('when subjects carry prefixes and odd whitespace, then the base subject is unchanged by the linear rewrite', () => {
    expect(baseSubject('  RE [2]:\tFwd:  AW(3) :  Q1 \n proposal ')).toBe('q1 proposal');
  });
});
