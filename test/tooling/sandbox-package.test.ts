import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { importsOf, packageOf, sources } from '../helpers/imports';

/**
 * packages/google-sandbox as another team gets it: resolved by its name through the workspace link, its built
 * entry points (scripts/build.mjs builds it; `npm test` runs that first) and its `google-sandbox` command — and
 * a package of its own: nothing of the Hub imported, the environment read only by its config module.
 */

const ROOT = join(__dirname, '..', '..');
const PACKAGE = join(ROOT, 'packages', 'google-sandbox');
const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));
const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });

test('when node_modules is looked at, then the package name links to the workspace folder', () => {
  expect(realpathSync(join(ROOT, 'node_modules', pkg.name))).toBe(realpathSync(PACKAGE));
});

test('when a CommonJS program requires the package and its ./config, then it gets the built code, typed', () => {
  const out = run([
    '-e',
    `const s = require(${JSON.stringify(pkg.name)}); const c = require(${JSON.stringify(`${pkg.name}/config`)});
     console.log(typeof s.createSandbox, typeof s.loadSandboxConfig, c.loadSandboxConfig({}).port, require.resolve(${JSON.stringify(pkg.name)}))`,
  ]);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toMatch(/^function function 8090 .*packages\/google-sandbox\/dist\/index\.js$/);
  for (const file of [pkg.main, pkg.types, pkg.exports['./config'].types, pkg.exports['./main']]) expect(() => readFileSync(join(PACKAGE, file))).not.toThrow();
});

test('when an ES module imports the package, then the named exports are there', () => {
  const out = run([
    '--input-type=module',
    '-e',
    `import { createSandbox, DEMO_ACCOUNTS } from ${JSON.stringify(pkg.name)}; console.log(typeof createSandbox, DEMO_ACCOUNTS.ana)`,
  ]);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toBe('function ana.garcia@acme.example');
});

test('when the google-sandbox command runs, then it listens and stops on SIGTERM', async () => {
  const bin = join(ROOT, 'node_modules', '.bin', Object.keys(pkg.bin)[0]!);
  const child = spawn(bin, [], { env: { PATH: process.env.PATH, SANDBOX_PORT: '0', SANDBOX_SEED: '1' } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  const url = await new Promise<string>((done, fail) => {
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) done(m[1]!);
    });
    void exited.then(() => fail(new Error(`google-sandbox exited: ${out}`)));
  });
  expect((await fetch(`${url}/oauth2/v3/certs`)).status).toBe(200);
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});

describe('a package of its own', () => {
  const files = sources(join(PACKAGE, 'src'));

  it('when its source imports a relative path, then the path stays inside the package source', () => {
    const escaping = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const references = [...text.matchAll(/^\/\/\/\s*<reference path="([^"]+)"/gm)].map((m) => m[1]!);
      const { runtime, typeOnly } = importsOf(file);
      return [...runtime, ...typeOnly, ...references]
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => relative(join(PACKAGE, 'src'), resolve(dirname(file), spec)).startsWith('..'))
        .map((spec) => `${relative(ROOT, file)}: ${spec}`);
    });
    expect(escaping).toEqual([]);
  });

  it('when its source imports a package, then it is never the Hub', () => {
    const hub = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).name;
    const named = files.flatMap((file) => Object.values(importsOf(file)).flat().map(packageOf));
    expect(named).not.toContain(hub);
  });

  it('when its source reads the environment, then only src/config.ts does', () => {
    const readers = files.filter((file) => /\bprocess\.env\b/.test(readFileSync(file, 'utf8'))).map((file) => relative(PACKAGE, file));
    expect(readers).toEqual(['src/config.ts']);
  });
});
