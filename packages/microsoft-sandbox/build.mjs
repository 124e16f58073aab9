// `npm run build` in this package (the Hub's scripts/build.mjs runs it too): compiles src/ into dist/ (CommonJS
// with .d.ts, source maps), then parses the CSDL once into dist/csdl/graph-v1.0.schema.json.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(join(here, 'dist'), { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2] });
if (run.status !== 0) process.exit(run.status ?? 1);
// The CSDL parsed once, at build time, into dist/csdl/graph-v1.0.schema.json (src/csdl/schema.ts).
const cache = spawnSync(process.execPath, ['-e', "require('./dist/csdl/schema.js').writeSchemaCache()"], { cwd: here, stdio: ['ignore', 2, 2] });
if (cache.status !== 0) process.exit(cache.status ?? 1);
