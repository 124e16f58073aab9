/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The sandboxes' own tests (their modules from source) live in their packages; the Hub's use them by name.
  roots: ['<rootDir>/test', '<rootDir>/packages/google-sandbox/test', '<rootDir>/packages/microsoft-sandbox/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // packages/client's sources import each other as './x.js' (what its ESM build needs); the .ts is what runs here.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 20000,
  globalSetup: '<rootDir>/test/setup/node-check.ts',
  reporters: ['default', '<rootDir>/test/setup/skipped-services-reporter.js'],
};
