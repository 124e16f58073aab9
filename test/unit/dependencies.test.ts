import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importsOf, packageOf, sources } from '../helpers/imports';

/**
 * Every package the code imports is declared in package.json: a transitive package (gaxios came with
 * google-auth-library) can vanish or change major version under a dependency update. What production runs needs
 * `dependencies` (the image installs only those): test/deploy/dockerfile.test.ts follows the production entry
 * points' imports and checks that. The rest of src/ (the demo, the docs generator) and tests, benchmarks and
 * scripts may use devDependencies — the sandboxes are dev dependencies, never in the production image.
 * The Google sandbox is a package of its own (packages/google-sandbox): its code declares in its own package.json.
 */

const ROOT = join(__dirname, '..', '..');
const declared = (dir: string) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
  const runtime = new Set(Object.keys(pkg.dependencies ?? {}));
  return { runtime, everything: new Set([...runtime, ...Object.keys(pkg.devDependencies ?? {})]) };
};
const { runtime, everything } = declared('.');
const sandbox = declared('packages/google-sandbox');

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
  it('when src/ imports a package, then package.json declares it', () => {
    expect(undeclared(['src'], everything, everything)).toEqual([]);
  });

  it('when tests, benchmarks or scripts import a package, then package.json declares it', () => {
    expect(undeclared(['test', 'bench', 'scripts'], everything, everything)).toEqual([]);
  });

  it('when the Google sandbox package imports a package, then its own package.json declares it (run time: dependencies)', () => {
    expect(undeclared(['packages/google-sandbox/src'], sandbox.runtime, sandbox.everything)).toEqual([]);
    expect(undeclared(['packages/google-sandbox/test'], sandbox.everything, sandbox.everything)).toEqual([]);
  });

  it('when a package is only reached through another one, then the check catches it', () => {
    const withoutGaxios = new Set([...runtime].filter((n) => n !== 'gaxios'));
    expect(undeclared(['src'], withoutGaxios, everything)).toEqual(expect.arrayContaining([expect.stringMatching(/imports gaxios$/)]));
  });
});
