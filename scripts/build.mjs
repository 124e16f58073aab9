// `npm run build` (and, with --if-stale, the first step of every other script): builds the workspace packages
// packages/google-sandbox and packages/microsoft-sandbox, compiles src/ and bench/ into dist/ with tsc, builds packages/client and the console,
// then records a digest of everything the output depends on in dist/.build-stamp. With --if-stale (what `npm run demo`, `admin-token`, `test` … use) it compiles
// only when that digest differs, so a current dist/ is never rewritten — not under a running demo, and not on
// every `npm run admin-token` (tsc takes seconds even when nothing changed).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Every npm script starts here, so an unsupported Node stops at once, with the sentence package.json's engines
// carries (the one src/node-version.ts prints; a test holds them together).
const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (Number(process.version.slice(1).split('.')[0]) < Number(/^>=(\d+)$/.exec(engines.node)?.[1] ?? 0)) {
  process.stderr.write(`This is Node.js ${process.version}, but ${engines.help[0].toLowerCase()}${engines.help.slice(1)}\n`);
  process.exit(1);
}

const stampFile = join(root, 'dist', '.build-stamp');
// What tsc reads: the compiled trees, its configuration, and the installed compiler and types (the lockfile) —
// and the workspace packages packages/google-sandbox, packages/microsoft-sandbox and packages/client, built here
// too so `npm test` and `npm run demo` from a clean clone have their dist/.
const SANDBOX = [
  'packages/google-sandbox/src',
  'packages/google-sandbox/build.mjs',
  'packages/google-sandbox/package.json',
  'packages/google-sandbox/tsconfig.json',
  'packages/google-sandbox/tsconfig.build.json',
];
const MS_SANDBOX = [
  'packages/microsoft-sandbox/src',
  'packages/microsoft-sandbox/build.mjs',
  'packages/microsoft-sandbox/package.json',
  'packages/microsoft-sandbox/tsconfig.json',
  'packages/microsoft-sandbox/tsconfig.build.json',
];
const CLIENT = [
  'packages/client/src',
  'packages/client/build.mjs',
  'packages/client/package.json',
  'packages/client/tsconfig.json',
  'packages/client/tsconfig.esm.json',
  'packages/client/tsconfig.cjs.json',
];
const INPUTS = ['src', 'bench', 'console', 'openapi.yaml', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json', ...SANDBOX, ...MS_SANDBOX, ...CLIENT];

function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function digest() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap((p) => files(join(root, p)))) {
    const content = readFileSync(file);
    hash.update(`${relative(root, file)}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}

const ifStale = process.argv.includes('--if-stale');
const before = digest(); // taken before compiling: a file edited during the build leaves the stamp stale
const sandboxBuild = join(root, 'packages', 'google-sandbox', 'build.mjs');
const sandboxBuilt = !existsSync(sandboxBuild) || existsSync(join(root, 'packages', 'google-sandbox', 'dist', 'index.js'));
const msSandboxBuild = join(root, 'packages', 'microsoft-sandbox', 'build.mjs');
const msSandboxBuilt = !existsSync(msSandboxBuild) || existsSync(join(root, 'packages', 'microsoft-sandbox', 'dist', 'index.js'));
const clientBuild = join(root, 'packages', 'client', 'build.mjs');
const clientBuilt = !existsSync(clientBuild) || existsSync(join(root, 'packages', 'client', 'dist', 'cjs', 'index.js'));
if (ifStale && sandboxBuilt && msSandboxBuilt && clientBuilt && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === before) process.exit(0);

// The sandbox first: the Hub's demo, tests and benches import it by its package name, typed by its dist/*.d.ts.
if (existsSync(sandboxBuild)) {
  const sandbox = spawnSync(process.execPath, [sandboxBuild], { stdio: ['ignore', 2, 2] });
  if (sandbox.status !== 0) process.exit(sandbox.status ?? 1);
}
if (existsSync(msSandboxBuild)) {
  const msSandbox = spawnSync(process.execPath, [msSandboxBuild], { stdio: ['ignore', 2, 2] });
  if (msSandbox.status !== 0) process.exit(msSandbox.status ?? 1);
}
// A source moved or deleted leaves its compiled file behind, and Node loads a stale dist/src/x.js before the
// dist/src/x/index.js a folder that replaced it compiles to: compiled files whose source is gone go first.
for (const tree of ['src', 'bench']) {
  for (const file of files(join(root, 'dist', tree))) {
    const compiled = /^(.*)\.js(?:\.map)?$/.exec(relative(join(root, 'dist'), file));
    if (compiled && !existsSync(join(root, `${compiled[1]}.ts`))) rmSync(file);
  }
}
const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
  stdio: ['ignore', 2, 2],
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
if (existsSync(clientBuild)) {
  const client = spawnSync(process.execPath, [clientBuild], { stdio: ['ignore', 2, 2] });
  if (client.status !== 0) process.exit(client.status ?? 1);
}
// The admin console's browser modules (console/, their own tsconfig: DOM, ES modules) and its stylesheet, into
// dist/console; the Hub serves them under a digest of their content (src/console/assets.ts).
if (existsSync(join(root, 'console', 'tsconfig.json'))) {
  rmSync(join(root, 'dist', 'console'), { recursive: true, force: true });
  const consoleTsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'console', 'tsconfig.json')], {
    stdio: ['ignore', 2, 2],
  });
  if (consoleTsc.status !== 0) process.exit(consoleTsc.status ?? 1);
  // uPlot (the Overview's charts): its ES module as a vendor file, its stylesheet after the console's own.
  const uplot = join(root, 'node_modules', 'uplot', 'dist');
  mkdirSync(join(root, 'dist', 'console', 'vendor'), { recursive: true });
  copyFileSync(join(uplot, 'uPlot.esm.js'), join(root, 'dist', 'console', 'vendor', 'uplot.js'));
  writeFileSync(
    join(root, 'dist', 'console', 'console.css'),
    `${readFileSync(join(root, 'console', 'console.css'), 'utf8')}\n${readFileSync(join(uplot, 'uPlot.min.css'), 'utf8')}\n`,
  );
  copyFileSync(join(root, 'console', 'favicon.svg'), join(root, 'dist', 'console', 'favicon.svg'));
}
// The API reference the Hub serves at /docs: Redocly's HTML rendering of openapi.yaml with its scripts inlined (no
// CDN), so the page loads nothing from anywhere but the Hub (src/routes/operations/api-docs.ts sets its CSP from the page).
if (existsSync(join(root, 'openapi.yaml')) && existsSync(join(root, 'node_modules', '.bin', 'redocly'))) {
  mkdirSync(join(root, 'dist', 'docs'), { recursive: true });
  const docs = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', '.bin', 'redocly'),
      'build-docs',
      'openapi.yaml',
      '--output',
      join('dist', 'docs', 'api.html'),
      '--inlineBundle',
      '--title',
      'Hub API reference',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  );
  if (docs.status !== 0) {
    process.stderr.write(`redocly build-docs failed (exit ${docs.status}):\n${docs.stdout}${docs.stderr}`);
    process.exit(docs.status ?? 1);
  }
  // Redoc's attribution logo is an <img> from Redocly's CDN (hidden when it fails to load), and the page names no
  // icon, so the browser asks for /favicon.ico: both become empty data: URLs, and the page asks for nothing else.
  const page = join(root, 'dist', 'docs', 'api.html');
  const html = readFileSync(page, 'utf8')
    .replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, 'data:,')
    .replace('<head>', '<head><link rel="icon" href="data:,">');
  writeFileSync(page, html);
}
writeFileSync(stampFile, `${before}\n`);
