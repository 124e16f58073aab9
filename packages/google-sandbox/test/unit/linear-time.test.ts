import { htmlToText } from '../../src/gmail/mime/text';
import { normalizeSubject } from '../../src/gmail/threading';

/**
 * Every pattern the sandbox applies to what a mail sender controls must cost time linear in its input (the
 * Hub's own text handling has the same test in the Hub's test/unit/linear-time.test.ts). Each case feeds
 * ~100–200 KB shaped to make a backtracking regex try every split and allows a CPU budget a quadratic
 * implementation misses by orders of magnitude (an older sandbox HTML stripper took seconds).
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
  ['reply prefix then a long run of spaces', () => normalizeSubject(`Re ${'\t '.repeat(100_000)}[1`)],
  ['HTML: unclosed <script> openers', () => htmlToText('<script>'.repeat(25_000))],
  ['HTML: unclosed comments', () => htmlToText('<!--'.repeat(50_000))],
  ['HTML: < without >', () => htmlToText('<a'.repeat(100_000))],
  ['HTML: closers without openers', () => htmlToText('</script'.repeat(25_000))],
  ['HTML: deep nesting', () => htmlToText('<div>x'.repeat(40_000))],
  ['entities without semicolons', () => htmlToText(`&${'a'.repeat(200_000)}&#${'1'.repeat(50_000)}`)],
];

describe('linear-time text handling in the sandbox', () => {
  it.each(cases)('when the input is %s, then it is handled within the CPU budget', (_name, run) => {
    expect(cpuMs(() => run())).toBeLessThan(BUDGET_MS);
  });

  it('when the sandbox strips HTML, then it keeps visible text and drops comments, scripts and styles', () => {
    expect(htmlToText('<p>a</p><!-- c --><script>x<y</script ><style>s</style>b<i>c</i><br>d<e').replace(/\s+/g, ' ').trim()).toBe('a bc d<e');
    expect(htmlToText('<script>no end <p>t</p>').replace(/\s+/g, ' ').trim()).toBe('no end t');
    expect(htmlToText('<!-- open <b>x</b>').trim()).toBe('x');
  });

  it('when subjects carry prefixes and odd whitespace, then the normalized subject is unchanged by the linear rewrite', () => {
    expect(normalizeSubject('Re:Re: re : Hello   World')).toBe('hello world');
  });
});
