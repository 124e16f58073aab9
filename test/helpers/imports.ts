import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

/** What a source file imports, read from its text: for the dependency and package-boundary checks. */

export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Specifiers a file loads at run time, and those it imports for types only (erased by the compiler). */
export function importsOf(file: string): { runtime: string[]; typeOnly: string[] } {
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

/** The package a bare specifier names (`@scope/name`, `name`); null for relative paths and Node's own modules. */
export const packageOf = (spec: string): string | null => {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
};
