import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

/**
 * Every package the code imports is declared in package.json: a transitive package (gaxios came with
 * google-auth-library) can vanish or change major version under a dependency update. The shipped code (src/)
 * needs `dependencies` (the image installs only those); tests, benchmarks and scripts may use devDependencies.
 */

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const runtime = new Set(Object.keys(pkg.dependencies));
const everything = new Set([...runtime, ...Object.keys(pkg.devDependencies)]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Bare specifiers a file loads at run time, and those it imports for types only (erased by the compiler). */
function importsOf(file: string): { runtime: string[]; typeOnly: string[] } {
  const text = readFileSync(file, 'utf8');
  const found = { runtime: [] as string[], typeOnly: [] as string[] };
  const patterns = [
    /^\s*import\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
    /^\s*export\s+[^'"]*?from\s+['"]([^'"]+)['"]/gm,
  ];
  for (const [i, pattern] of patterns.entries()) {
    for (const m of text.matchAll(pattern)) {
      const typeOnly = i === 0 && m[1] !== undefined;
      const spec = i === 0 ? m[2]! : m[1]!;
      (typeOnly ? found.typeOnly : found.runtime).push(spec);
    }
  }
  return found;
}

const packageOf = (spec: string): string | null => {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
};

function undeclared(dirs: string[], allowed: Set<string>, typesAllowed: Set<string>): string[] {
  const problems = new Set<string>();
  for (const file of dirs.flatMap((d) => sources(join(ROOT, d)))) {
    const { runtime: loaded, typeOnly } = importsOf(file);
    for (const spec of loaded) {
      const name = packageOf(spec);
      if (name && !allowed.has(name)) problems.add(`${relative(ROOT, file)} imports ${name}`);
    }
    for (const spec of typeOnly) {
      const name = packageOf(spec);
      if (name && !typesAllowed.has(name) && !typesAllowed.has(`@types/${name}`)) problems.add(`${relative(ROOT, file)} imports types of ${name}`);
    }
  }
  return [...problems].sort();
}

describe('declared dependencies', () => {
  it('when src/ imports a package at run time, then it is in dependencies (what the image installs)', () => {
    expect(undeclared(['src'], runtime, everything)).toEqual([]);
  });

  it('when tests, benchmarks or scripts import a package, then package.json declares it', () => {
    expect(undeclared(['test', 'bench', 'scripts'], everything, everything)).toEqual([]);
  });

  it('when a package is only reached through another one, then the check catches it', () => {
    const withoutGaxios = new Set([...runtime].filter((n) => n !== 'gaxios'));
    expect(undeclared(['src'], withoutGaxios, everything)).toEqual(expect.arrayContaining([expect.stringMatching(/imports gaxios$/)]));
  });
});
