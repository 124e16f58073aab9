// Builds the client twice — ES modules (dist/esm) and CommonJS (dist/cjs), each with its .d.ts — and marks each
// tree's module kind with a package.json, so `import` and `require` both load plain JavaScript without a bundler.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(join(here, 'dist'), { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.esm.json', 'module'],
  ['tsconfig.cjs.json', 'commonjs'],
]) {
  const run = spawnSync(process.execPath, [tsc, '-p', join(here, config)], { stdio: ['ignore', 2, 2] });
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeFileSync(join(here, 'dist', type === 'module' ? 'esm' : 'cjs', 'package.json'), `${JSON.stringify({ type })}\n`);
}
