import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MIN_NODE_MAJOR, NODE_ADVICE, RECOMMENDED_NODE_MAJOR, unsupportedNode } from '../../src/node-version';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.config.js is CommonJS: its globalSetup is what is checked
const jestConfig = require(join(ROOT, 'jest.config.js')) as { globalSetup: string };

describe('the supported Node.js releases', () => {
  it('when package.json, .npmrc, .nvmrc and the start-up check are compared, then they agree', () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_MAJOR}`);
    // npm prints the whole engines object when it refuses: the sentence is what a newcomer reads
    expect(pkg.engines.help).toBe(`${NODE_ADVICE[0]!.toUpperCase()}${NODE_ADVICE.slice(1)}.`);
    expect(readFileSync(join(ROOT, '.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe(String(RECOMMENDED_NODE_MAJOR));
  });

  it.each([
    ['v20.20.2', false],
    ['v21.7.3', false],
    ['v22.0.0', true],
    ['v24.21.0', true],
    ['v30.1.0', true],
  ])('when the version is %s, then supported is %s', (version, supported) => {
    const problem = unsupportedNode(version);
    expect(problem === null).toBe(supported);
    if (problem) expect(problem).toBe(`This is Node.js ${version}, but ${NODE_ADVICE}.`);
  });

  it('when an npm script starts on Node 20, then scripts/build.mjs (their first step) stops with the same sentence', () => {
    const script = `Object.defineProperty(process, 'version', { value: 'v20.20.2' }); import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)});`;
    const res = spawnSync(process.execPath, ['-e', script, '--', '--if-stale'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(res.status).toBe(1);
    expect(res.stderr).toBe(`This is Node.js v20.20.2, but ${NODE_ADVICE}.\n`);
    for (const [name, command] of Object.entries(pkg.scripts as Record<string, string>)) {
      // The linters need no build: lint:openapi, lint:deps (dependency-cruiser), lint (ESLint, Prettier) and format
      // run on the sources as they are.
      if (['build', 'start', 'lint:openapi', 'lint:deps', 'lint:deps:baseline', 'lint', 'format'].includes(name)) continue;
      // The unit tier runs the sources as they are, with no build: Jest (started by scripts/jest.mjs) stops it in
      // its global setup with the sentence.
      if (/^NODE_OPTIONS="[^"]*" node scripts\/jest\.mjs /.test(command)) expect(jestConfig.globalSetup).toBe('<rootDir>/test/setup/node-check.ts');
      else expect({ name, command }).toEqual({ name, command: expect.stringMatching(/^node scripts\/build\.mjs --if-stale && /) });
    }
  });

  it.each(['dist/src/main.js', 'dist/src/demo.js', 'dist/src/cli/migrate.js', 'dist/src/cli/admin-token.js'])(
    'when %s starts on Node 20, then it exits 1 with the one sentence before loading anything else',
    (entry) => {
      // process.version is what the check reads; faking it runs the real entry point as an old Node would
      const fake = `Object.defineProperty(process, 'version', { value: 'v20.20.2' }); require(${JSON.stringify(join(ROOT, entry))});`;
      const res = spawnSync(process.execPath, ['-e', fake], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(res.status).toBe(1);
      expect(res.stderr).toBe(`This is Node.js v20.20.2, but ${NODE_ADVICE}.\n`);
    },
  );
});
