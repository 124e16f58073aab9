import { headerAddresses } from '../../src/tools/email/addresses';
import { charsetOf } from '../../src/tools/email/body';
import { snippetText } from '../../src/tools/email/map';
import { baseSubject, messageIds } from '../../src/tools/email/threading';
import { htmlToText as sandboxHtmlToText } from '../../src/sandbox/gmail/mime/text';
import { normalizeSubject } from '../../src/sandbox/gmail/threading';

/**
 * Every pattern applied to what a mail sender or an agent controls must cost time linear in its input. Each
 * case feeds ~100–200 KB shaped to make a backtracking regex try every split (runs of the characters it
 * repeats, openers without closers) and allows a CPU budget a quadratic implementation misses by orders of
 * magnitude (the reply-prefix regex took 160 ms for 20,000 spaces; the old sandbox HTML stripper seconds).
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
  ['reply prefix then a long run of spaces (tools)', () => baseSubject(`re${' '.repeat(200_000)}x`)],
  ['reply prefix then a long run of spaces (sandbox)', () => normalizeSubject(`Re ${'\t '.repeat(100_000)}[1`)],
  ['thousands of reply prefixes', () => baseSubject('Re: '.repeat(50_000))],
  ['sandbox HTML: unclosed <script> openers', () => sandboxHtmlToText('<script>'.repeat(25_000))],
  ['sandbox HTML: unclosed comments', () => sandboxHtmlToText('<!--'.repeat(50_000))],
  ['sandbox HTML: < without >', () => sandboxHtmlToText('<a'.repeat(100_000))],
  ['sandbox HTML: closers without openers', () => sandboxHtmlToText('</script'.repeat(25_000))],
  ['sandbox HTML: deep nesting', () => sandboxHtmlToText('<div>x'.repeat(40_000))],
  ['sandbox entities without semicolons', () => sandboxHtmlToText(`&${'a'.repeat(200_000)}&#${'1'.repeat(50_000)}`)],
  ['snippet entities without semicolons', () => snippetText(`&${'a'.repeat(200_000)}${'&#x1'.repeat(20_000)}`)],
  ['charset parameter noise', () => charsetOf({ headers: [{ name: 'Content-Type', value: `text/html${'; charset'.repeat(20_000)}${' '.repeat(50_000)}` }] })],
  ['message ids: < without >', () => messageIds('<a'.repeat(100_000))],
  ['address header: a long list of junk', () => headerAddresses('"a, <b@c'.repeat(20_000))],
];

describe('linear-time text handling', () => {
  it.each(cases)('when the input is %s, then it is handled within the CPU budget', (_name, run) => {
    expect(cpuMs(() => run())).toBeLessThan(BUDGET_MS);
  });

  it('when the sandbox strips HTML, then it keeps visible text and drops comments, scripts and styles', () => {
    expect(sandboxHtmlToText('<p>a</p><!-- c --><script>x<y</script ><style>s</style>b<i>c</i><br>d<e').replace(/\s+/g, ' ').trim()).toBe('a bc d<e');
    expect(sandboxHtmlToText('<script>no end <p>t</p>').replace(/\s+/g, ' ').trim()).toBe('no end t');
    expect(sandboxHtmlToText('<!-- open <b>x</b>').trim()).toBe('x');
  });

  it('when subjects carry prefixes and odd whitespace, then the base subject is unchanged by the linear rewrite', () => {
    expect(baseSubject('  RE [2]:\tFwd:  AW(3) :  Q1 \n proposal ')).toBe('q1 proposal');
    expect(normalizeSubject('Re:Re: re : Hello   World')).toBe('hello world');
  });
});
