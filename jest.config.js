/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The Google sandbox's own tests (its modules from source) live in its package; the Hub's use it by name.
  roots: ['<rootDir>/test', '<rootDir>/packages/google-sandbox/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // packages/client's sources import each other as './x.js' (what its ESM build needs); the .ts is what runs here.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 20000,
  globalSetup: '<rootDir>/test/setup/node-check.ts',
  reporters: ['default', '<rootDir>/test/setup/skipped-services-reporter.js'],
};
