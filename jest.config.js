/**
 * The suite in four tiers (jest projects), each run by its own script:
 *   unit       pure logic: no database, no process, no network server of its own (`npm run test:unit`)
 *   component  the real app over HTTP with the sandbox and a database, in parallel workers (`npm run test:component`)
 *   e2e        processes: the demo, the browser, generators + tsc, replicas, deployment files (`npm run test:e2e`)
 *   timing     every assertion about latency or CPU (the fuzz run's CPU ceilings too), run alone: never beside
 *              another suite (`npm run test:timing`)
 * `npm test` runs lint, the type check, unit and component; .ci/run runs every tier, timing last.
 *
 * A file's tier is its folder (test/unit, test/timing, …) unless a list below claims it: component is every test
 * file no other tier claims, so a new folder of HTTP suites needs no entry here.
 */

/** Where test files live: the Hub's, and each package's own (their modules from source). One entry per line. */
const roots = [
  '<rootDir>/test', // the Hub's own
  '<rootDir>/packages/google-sandbox/test', // the Google sandbox's
  '<rootDir>/packages/microsoft-sandbox/test', // the Microsoft sandbox's
];

/** Paths from the repository root: a folder (ending in '/', `*` for one path segment) or one file. */
const UNIT = ['test/unit/', 'test/client/types.test.ts', 'packages/*/test/unit/'];
const E2E = [
  'test/e2e/',
  'test/browser/',
  'test/replicas/',
  'test/tooling/',
  'test/deploy/',
  'test/component/demo.test.ts',
  'test/component/demo-tracing.test.ts', // the demo's process, with an OTLP collector
  'test/component/lifecycle.test.ts', // starts Hub processes and stops them with signals
  'test/unit/node-version.test.ts', // runs node on the build script
];
const TIMING = [
  'test/timing/',
  'test/component/hostile-html-latency.test.ts', // another customer's p99 while one reads hostile HTML
  'test/component/fuzz.test.ts', // a seeded fuzz run of a Hub process, with a CPU ceiling per kind of request
  'test/sandbox/upstream.test.ts', // the upstream layer's attempt timeouts, backoffs and Retry-After waits
  'test/unit/linear-time.test.ts', // CPU budgets
  'packages/*/test/unit/linear-time.test.ts', // CPU budgets
];

const escape = (s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+');
/** testMatch globs for a list. */
const globs = (paths) => paths.map((p) => `<rootDir>/${p}${p.endsWith('/') ? '**/*.test.ts' : ''}`);
/** testPathIgnorePatterns (regular expressions) for lists. */
const except = (...lists) => ['/node_modules/', ...lists.flat().map((p) => `<rootDir>/${escape(p)}${p.endsWith('/') ? '' : '$'}`)];

const common = {
  testEnvironment: 'node',
  roots,
  transform: { '^.+\\.ts$': 'ts-jest' },
  // packages/client's sources import each other as './x.js' (what its ESM build needs); the .ts is what runs here.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
/** Tiers with databases: one migrated PGlite per run, each test's database a copy of it. */
const withDatabases = {
  globalSetup: '<rootDir>/test/setup/pglite-template.ts',
  globalTeardown: '<rootDir>/test/setup/pglite-template-teardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  // A hang detector, not a speed target: a test that waits on a busy machine (other suites, other work on the
  // cores) must not fail for it. Speed lives in bench/ and in the timing tier's own bounds.
  testTimeout: 60000,
  globalSetup: '<rootDir>/test/setup/node-check.ts',
  reporters: ['default', '<rootDir>/test/setup/skipped-services-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: globs(UNIT), testPathIgnorePatterns: except(E2E, TIMING) },
    { ...common, ...withDatabases, displayName: 'component', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: except(UNIT, E2E, TIMING) },
    { ...common, ...withDatabases, displayName: 'e2e', testMatch: globs(E2E), testPathIgnorePatterns: except(TIMING) },
    { ...common, ...withDatabases, displayName: 'timing', testMatch: globs(TIMING) },
  ],
};
