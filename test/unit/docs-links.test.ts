import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The documentation stands on its own: every relative link in README.md and docs/ reaches a file of this
 * repository (and, for a Markdown page, a heading in it), and no page or source file sends a reader to something
 * outside the repository that they cannot open.
 */

const ROOT = join(__dirname, '..', '..');

function walk(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : walk(path, keep);
    return keep(path) ? [path] : [];
  });
}

const PAGES = [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md'))];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown links outside code: `[text](target)`, without external URLs and mail links. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('documentation links', () => {
  test.each(PAGES.map((p) => [relative(ROOT, p), p]))('when %s links within the repository, then every target and heading exists', (_name, page) => {
    const text = readFileSync(page, 'utf8');
    const broken = links(text).filter((target) => {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) return true;
      if (anchor === undefined || !file.endsWith('.md')) return false;
      return !anchors(readFileSync(file, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});

describe('references outside the repository', () => {
  const SOURCES = [
    ...PAGES,
    join(ROOT, 'openapi', 'base.yaml'),
    ...walk(join(ROOT, 'src'), (p) => /\.(ts|mjs|js)$/.test(p)),
    ...walk(join(ROOT, 'scripts'), () => true),
    ...walk(join(ROOT, 'packages'), (p) => /\/(src\/.*\.ts|README\.md)$/.test(p)),
  ];
  const OUTSIDE = /\.\.\/shared\b|\bseeds?\s+\d{3}\b|\bseed\s+\d{3}|\bissues?\s+\d+\b|\bstop\s+\d+\b/i;

  test('when a page or source file is read, then it names no issue, seed or folder a reader of this repository cannot open', () => {
    const found = SOURCES.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(ROOT, file)}:${i + 1}` }))
        .filter(({ line }) => OUTSIDE.test(line))
        .map(({ line, at }) => `${at}: ${line.trim().slice(0, 120)}`),
    );
    expect(found).toEqual([]);
  });
});
