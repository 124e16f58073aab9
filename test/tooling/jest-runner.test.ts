import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * scripts/jest.mjs in a project of its own: a file whose worker a signal kills runs once more and that run decides;
 * a failed test, or a file killed twice, fails the run as jest says.
 */

const ROOT = join(__dirname, '..', '..');

jest.setTimeout(120_000); // three jest runs a test, each starting workers, on a loaded 2-core machine

/** A test file. */
const testFile = (body: string) => `test('it', () => { ${body} });\n`;
/** A body that kills its worker with `signal` (with a marker: only while the marker file is missing). */
const crash = (signal: 'SIGSEGV' | 'SIGTRAP', marker?: string) =>
  marker === undefined
    ? `process.kill(process.pid, '${signal}');`
    : `const fs = require('node:fs'); if (!fs.existsSync(${JSON.stringify(marker)})) { fs.writeFileSync(${JSON.stringify(marker)}, ''); process.kill(process.pid, '${signal}'); }`;

describe('scripts/jest.mjs', () => {
  let dir: string;
  const jestRun = (mode = '--maxWorkers=2') =>
    spawnSync(process.execPath, [join(dir, 'scripts/jest.mjs'), mode, '--ci'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
  const files = (contents: Record<string, string>) => {
    // A fresh cache each time: jest runs in band (in its own process) files it remembers as fast.
    for (const sub of ['suites', 'cache']) rmSync(join(dir, sub), { recursive: true, force: true });
    mkdirSync(join(dir, 'suites'));
    for (const [name, body] of Object.entries(contents)) writeFileSync(join(dir, 'suites', `${name}.spec.js`), body);
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hub-jest-runner-'));
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(ROOT, 'scripts/jest.mjs'), join(dir, 'scripts/jest.mjs'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'jest.config.js'),
      `module.exports = { testEnvironment: 'node', testMatch: ['<rootDir>/suites/*.spec.js'], cacheDirectory: '<rootDir>/cache' };\n`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a worker dies by a signal once, then that file runs again, alone, and the run passes', () => {
    const marker = join(dir, 'crashed-once');
    files({ a: testFile(crash('SIGSEGV', marker)), b: testFile('expect(1).toBe(1);'), c: testFile('expect(2).toBe(2);') });
    const res = jestRun();
    expect(existsSync(marker)).toBe(true);
    expect(res.stderr).toMatch(
      /1 test file\(s\) lost their worker to a crash of the runtime \(nodejs\/node#64500\), not to a failed test: suites\/a\.spec\.js/,
    );
    expect(res.status).toBe(0);
  });

  it('when a test fails beside a killed worker, then nothing runs again and the run fails', () => {
    files({ a: testFile(crash('SIGSEGV')), b: testFile('expect(1).toBe(2);'), c: testFile('expect(2).toBe(2);') });
    const res = jestRun();
    expect(res.stderr).not.toContain('lost their worker');
    expect(res.status).toBe(1);
  });

  it('when the worker dies again (SIGTRAP, as a failed V8 check ends) on the second run, then the run fails', () => {
    files({ a: testFile(crash('SIGTRAP')), b: testFile('expect(1).toBe(1);') });
    const res = jestRun();
    expect(res.stderr).toContain('lost their worker to a crash of the runtime');
    expect(res.status).not.toBe(0);
  });

  it('when jest runs in band and a crash ends jest itself once, then the same tests run again and that run passes', () => {
    const marker = join(dir, 'jest-crashed-once');
    files({ a: testFile('expect(1).toBe(1);'), b: testFile(crash('SIGSEGV', marker)) });
    const res = jestRun('--runInBand');
    expect(existsSync(marker)).toBe(true);
    expect(res.stderr).toContain('jest itself (running in band) was ended by SIGSEGV, a crash of the runtime');
    expect(res.status).toBe(0);
  });

  it('when jest runs in band and a crash ends it on the second run too, then the run fails', () => {
    files({ a: testFile(crash('SIGTRAP')) });
    const res = jestRun('--runInBand');
    expect(res.stderr).toContain('jest itself (running in band) was ended by SIGTRAP');
    expect(res.status).not.toBe(0);
  });

  it('when jest runs in band and a test fails, then nothing runs again and the run fails', () => {
    files({ a: testFile('expect(1).toBe(2);') });
    const res = jestRun('--runInBand');
    expect(res.stderr).not.toContain('jest itself');
    expect(res.status).toBe(1);
  });
});
