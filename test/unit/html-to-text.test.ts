import { MAX_NESTING, htmlToText, nestingDepth, stripTags } from '../../src/workers/html-to-text';

/** The conversion the HTML worker runs (pure functions; the pool around it is tested in worker-pool.test.ts). */

// What these cost in CPU (linear: a megabyte in milliseconds) is measured alone, in test/timing/cpu-budgets.test.ts.

describe('nesting depth (as htmlparser2 builds the tree)', () => {
  it('when markup is ordinary mail, including sloppy unclosed <p>, <li>, <td>, then the depth is small', () => {
    expect(nestingDepth('<html><body><table><tr><td><p>a<p>b</td></tr></table></body></html>', 100)).toBe(6);
    expect(nestingDepth(`<ul>${'<li>item'.repeat(5_000)}</ul>`, 100)).toBe(2);
    expect(nestingDepth(`${'<p>para'.repeat(5_000)}`, 100)).toBe(1);
    expect(nestingDepth(`<table>${'<tr><td>a<td>b'.repeat(2_000)}</table>`, 100)).toBe(3);
    expect(nestingDepth('<br><img src=x><hr><meta charset=utf-8>text', 100)).toBe(0);
    expect(nestingDepth('<!--[if mso]><table><tr><td><![endif]--><div>x</div>', 100)).toBe(1);
  });

  it('when elements really nest, then tricks that hide it from a naive scan are still counted', () => {
    expect(nestingDepth('<div>x'.repeat(5_000), MAX_NESTING)).toBeGreaterThan(MAX_NESTING);
    // A closing tag inside an attribute value or inside <script> closes nothing.
    expect(nestingDepth('<div title="</div>">x'.repeat(1_000), MAX_NESTING)).toBeGreaterThan(MAX_NESTING);
    expect(nestingDepth('<div><script></div></script>'.repeat(1_000), MAX_NESTING)).toBeGreaterThan(MAX_NESTING);
    // Self-closing syntax does not close a non-void HTML element; unknown and odd tag names nest too.
    expect(nestingDepth('<div/>'.repeat(1_000), MAX_NESTING)).toBeGreaterThan(MAX_NESTING);
    expect(nestingDepth('<x.y>'.repeat(1_000) + '</x>'.repeat(1_000), MAX_NESTING)).toBeGreaterThan(MAX_NESTING);
  });

  it('when the input is 1 MB of nesting, then measuring it stops at the limit', () => {
    const deep = '<div>x'.repeat(175_000);
    expect(nestingDepth(deep, MAX_NESTING)).toBeGreaterThan(MAX_NESTING);
  });
});

describe('html → text', () => {
  it('when HTML is ordinary, then html-to-text lays it out: paragraphs, bullets, links, no images or styles', () => {
    const html = '<style>p{}</style><p>Hola <i>María</i></p><ul><li>one<li>two</ul><a href="https://x.example/a">the plan</a><img src="x.png" alt="logo">';
    expect(htmlToText({ html, maxChars: 1_000 })).toEqual({
      text: 'Hola María\n\n * one\n * two\n\nthe plan [https://x.example/a]',
      truncated: false,
      degraded: false,
    });
  });

  it('when HTML nests beyond the limit, then the text is the stripped text of all of it, flagged degraded', () => {
    const result = htmlToText({ html: '<div>x'.repeat(5_000), maxChars: 100_000 });
    expect(result).toEqual({ text: Array(5_000).fill('x').join('\n'), truncated: false, degraded: true });
  });

  it('when the text is longer than asked, then it is cut and flagged truncated', () => {
    expect(htmlToText({ html: `<p>${'a'.repeat(500)}</p>`, maxChars: 100 })).toEqual({ text: 'a'.repeat(100), truncated: true, degraded: false });
    expect(htmlToText({ html: '<div>x'.repeat(5_000), maxChars: 100 })).toMatchObject({ truncated: true, degraded: true });
  });
});

describe('stripped text (the fallback)', () => {
  it('when HTML is stripped, then hidden parts go, blocks break lines and common entities decode', () => {
    const html =
      '<head><title>T</title><style>x{}</style></head><!-- note --><p>Tom &amp; Jerry&nbsp;&lt;3 &#8364; &#x41;</p><div>Bye</div><script>evil()</script>';
    expect(stripTags(html, 1_000)).toEqual({ text: 'Tom & Jerry\u00a0<3 € A\n\nBye', truncated: false });
  });

  it('when hostile shapes are stripped (unclosed openers, no closers, runs of <), then each ends with at most the text asked for', () => {
    for (const hostile of [
      '<script>'.repeat(100_000),
      '<!--'.repeat(200_000),
      '<a'.repeat(400_000),
      '</script'.repeat(100_000),
      '<div>x'.repeat(175_000),
      `&${'a'.repeat(800_000)}`,
    ]) {
      expect(stripTags(hostile, 100_000).text.length).toBeLessThanOrEqual(100_000);
    }
  });

  it('when much more text is there than asked for, then reading stops early and says truncated', () => {
    const result = stripTags('<p>word</p>'.repeat(200_000), 1_000);
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(1_000);
  });
});
