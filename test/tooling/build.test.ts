import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * scripts/build.mjs in a project of its own (a one-file src/): `--if-stale` compiles only when an input changed,
 * and leaves a current dist/ untouched — what lets `npm run admin-token` run under a live demo.
 */

const ROOT = join(__dirname, '..', '..');

jest.setTimeout(120_000); // tsc starts in seconds on a loaded 2-core machine; each test runs it once or twice

describe('scripts/build.mjs', () => {
  let dir: string;
  const build = (...args: string[]) => spawnSync(process.execPath, [join(dir, 'scripts/build.mjs'), ...args], { cwd: dir, encoding: 'utf8' });
  const output = () => join(dir, 'dist/src/a.js');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-build-'));
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src'));
    copyFileSync(join(ROOT, 'scripts/build.mjs'), join(dir, 'scripts/build.mjs'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: '.', module: 'node16', types: [] }, include: ['src'] }),
    );
    writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json' }));
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json')); // its engines: the Node check
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1;\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when dist/ is current, then --if-stale compiles nothing and touches no file; after an edit it compiles again', () => {
    expect(build().status).toBe(0);
    const first = statSync(output()).mtimeMs;
    const stamp = readFileSync(join(dir, 'dist/.build-stamp'), 'utf8');
    expect(build('--if-stale').status).toBe(0);
    expect(statSync(output()).mtimeMs).toBe(first);
    expect(readFileSync(join(dir, 'dist/.build-stamp'), 'utf8')).toBe(stamp);
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
    expect(build('--if-stale').status).toBe(0);
    expect(readFileSync(output(), 'utf8')).toContain('exports.a = 2');
    expect(readFileSync(join(dir, 'dist/.build-stamp'), 'utf8')).not.toBe(stamp);
  });

  it('when compilation fails, then it exits non-zero, prints nothing on stdout (a $(…) capture stays clean) and keeps the old stamp', () => {
    const stamp = readFileSync(join(dir, 'dist/.build-stamp'), 'utf8');
    writeFileSync(join(dir, 'src/a.ts'), 'export const a: number = "x";\n');
    const res = build('--if-stale');
    expect(res.status).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('TS2322');
    expect(readFileSync(join(dir, 'dist/.build-stamp'), 'utf8')).toBe(stamp);
  });
});
