import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './deploy';

/**
 * The packages a program can load at run time: from its entry files, every relative import followed (static,
 * re-exports, dynamic `import()`), type-only imports left out (the compiler erases them); what is returned are
 * the bare specifiers (`express`, `@hub/google-sandbox`, `node:fs`) and the files that import each.
 */
export function runtimePackagesOf(entries: string[]): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const queue = entries.map((e) => join(ROOT, e));
  const STATIC = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specifiers = [...[...text.matchAll(STATIC)].filter((m) => !m[1]).map((m) => m[2]!), ...[...text.matchAll(DYNAMIC)].map((m) => m[1]!)];
    for (const s of specifiers) {
      if (s.startsWith('.')) {
        const base = join(dirname(file), s.replace(/\.js$/, ''));
        const found = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
        if (found) queue.push(found);
        continue;
      }
      const name = s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!;
      packages.set(name, [...(packages.get(name) ?? []), relative(ROOT, file)]);
    }
  }
  return packages;
}
