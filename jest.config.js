/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testTimeout: 20000,
  globalSetup: '<rootDir>/test/setup/node-check.ts',
  reporters: ['default', '<rootDir>/test/setup/skipped-services-reporter.js'],
};
