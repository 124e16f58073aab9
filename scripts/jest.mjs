// Every test script runs jest through this file: the same arguments, plus one rule. When the only failures of a run
// are test files whose worker process a crash of the runtime itself ended (SIGSEGV, SIGBUS, SIGILL, SIGTRAP) — not
// a failed assertion, not a timeout — those files run once more, one at a time, and that second run decides.
//
// Why: Node.js 22–26 intermittently dies inside V8's WebAssembly runtime in a process that has started many PGlite
// instances (PostgreSQL compiled to WebAssembly): SIGSEGV (nodejs/node#64500, open; electric-sql/pglite#1053), or
// SIGTRAP from V8's own check "jit_page_->allocations_.erase(addr) == 1" in ThreadIsolation::UnregisterWasmAllocation
// while PGlite runs in worker threads (seen here). The Hub has no native code, so such a death is never one of its
// tests failing; this project's CI has met it in a different file each time. Everything else fails as jest says: a
// failed test, a file that does not compile, a file whose worker dies again, a worker out of memory (SIGABRT).
//
// The tiers that run in band (e2e, timing) have no worker to lose: the crash ends jest itself, with no report of
// which files passed. Such a run, ended by one of those signals, runs once more whole, and that second run decides.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jestBin = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
/** The signals a crash of the runtime itself ends a process with (KILLED below names the same). */
const CRASHES = ['SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGTRAP'];
/** jest-worker's sentence for a worker that a signal ended (ChildProcessWorker's _onExit). */
const KILLED = /A jest worker process \(pid=\d+\) was terminated by another process: signal=(SIGSEGV|SIGBUS|SIGILL|SIGTRAP)/;

const dir = mkdtempSync(join(tmpdir(), 'hub-jest-'));
const run = (args) => {
  const out = join(dir, `results-${Date.now()}.json`);
  const { status, signal } = spawnSync(process.execPath, [jestBin, ...args, '--json', `--outputFile=${out}`], {
    cwd: root,
    stdio: 'inherit', // with --outputFile the JSON report goes to the file; the human one stays on stderr
  });
  let results = null;
  try {
    results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    // no report: jest itself failed (bad arguments, a global setup that threw); its status says so
  }
  return { status: status ?? (signal ? 1 : 0), signal, results };
};

/** The files of a run whose only failure is their worker's death by a signal; null when anything else failed. */
function killedOnly(results) {
  if (!results || results.numFailedTests > 0 || results.numRuntimeErrorTestSuites === 0) return null;
  const failed = results.testResults.filter((r) => r.status === 'failed');
  if (failed.length === 0 || !failed.every((r) => KILLED.test(r.message ?? ''))) return null;
  return failed.map((r) => r.name);
}

let exitCode;
try {
  const args = process.argv.slice(2);
  const first = run(args);
  const killed = first.status === 0 ? null : killedOnly(first.results);
  if (CRASHES.includes(first.signal)) {
    process.stderr.write(
      `\njest itself (running in band) was ended by ${first.signal}, a crash of the runtime (nodejs/node#64500), not a failed test.\n` +
        'Running the same tests again; that run decides.\n\n',
    );
    exitCode = run(args).status;
  } else if (!killed) {
    exitCode = first.status;
  } else {
    const names = killed.map((f) => relative(root, f));
    process.stderr.write(
      `\n${names.length} test file(s) lost their worker to a crash of the runtime (nodejs/node#64500), not to a failed test: ${names.join(', ')}\n` +
        'Running them again, one at a time; that run decides.\n\n',
    );
    // The same projects and options; only these files, one at a time.
    const again = run([...args.filter((a) => !/^--maxWorkers/.test(a)), '--maxWorkers=1', '--runTestsByPath', ...killed]);
    exitCode = again.status;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
