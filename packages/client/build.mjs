// Builds the client twice — ES modules (dist/esm) and CommonJS (dist/cjs), each with its .d.ts — and marks each
// tree's module kind with a package.json, so `import` and `require` both load plain JavaScript without a bundler.
// npm runs it on `prepare` (a local `npm install`, `npm pack`, `npm publish`) and `prepack`; with --if-stale it
// does nothing when dist/ was built from exactly these sources (so a pack that runs both builds once).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const stamp = join(here, 'dist', '.build-stamp');
const inputs = [
  'tsconfig.json',
  'tsconfig.esm.json',
  'tsconfig.cjs.json',
  'build.mjs',
  ...readdirSync(join(here, 'src'))
    .map((f) => join('src', f))
    .sort(),
];
const hash = createHash('sha256');
for (const file of inputs)
  hash
    .update(`${file}\0`)
    .update(readFileSync(join(here, file)))
    .update('\0');
const digest = hash.digest('hex');
if (process.argv.includes('--if-stale') && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest) process.exit(0);

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('@hub/client: building it needs TypeScript — run `npm install` at the root of the Hub repository first.\n');
  process.exit(1);
}
rmSync(join(here, 'dist'), { recursive: true, force: true });
for (const [config, type] of [
  ['tsconfig.esm.json', 'module'],
  ['tsconfig.cjs.json', 'commonjs'],
]) {
  const run = spawnSync(process.execPath, [tsc, '-p', join(here, config)], { stdio: ['ignore', 2, 2] });
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeFileSync(join(here, 'dist', type === 'module' ? 'esm' : 'cjs', 'package.json'), `${JSON.stringify({ type })}\n`);
}
writeFileSync(stamp, `${digest}\n`);
