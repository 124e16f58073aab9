import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The repo's lint rules (npm test runs them): ESLint's and typescript-eslint's recommended sets, with the
// exceptions the README's "Lint and format" section gives reasons for.
export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'test-results/**', 'data/**', '**/*.generated.ts'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-control-regex': 'off', // the log scrubber and header checks match control characters by design
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      '@typescript-eslint/triple-slash-reference': ['error', { path: 'always', types: 'prefer-import', lib: 'always' }], // libmime's ambient types
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  { files: ['console/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  // The README's rule: the Hub reads its environment in src/config/ and nowhere else.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config/**'],
    rules: { 'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read configuration in src/config/ only' }] },
  },
  // CommonJS scripts (worker and replica entry points run as plain Node), and main.ts's lazy requires, which keep
  // modules a command does not use out of its start-up (and load the server after the tracing SDK, in demo.ts too).
  { files: ['**/*.js', 'src/main.ts', 'src/demo.ts', 'test/deploy/compose.test.ts'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['test/**/*.ts', 'bench/**/*.ts', 'packages/*/test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
