/**
 * Says in one line, at the end of `npm test`, which suites did not run for want of a service, and how to run
 * them. With CI=true a missing service fails the run instead (test/helpers/env.ts), so this never prints there.
 */
class SkippedServicesReporter {
  onRunComplete(_contexts, results) {
    const missing = [!process.env.DATABASE_URL && 'PostgreSQL (no DATABASE_URL)', !process.env.REDIS_URL && 'Redis (no REDIS_URL)'].filter(Boolean);
    if (missing.length === 0) return;
    process.stderr.write(
      `Skipped: the ${missing.join(' and ')} suites, ${results.numPendingTests} test(s) — to run them: ` +
        'DATABASE_URL=postgres://postgres@127.0.0.1:5432/hub REDIS_URL=redis://127.0.0.1:6379 npm test (or bash .ci/run, which starts both).\n',
    );
  }
}

module.exports = SkippedServicesReporter;
