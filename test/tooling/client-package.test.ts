import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * packages/client as a consumer loads it: `require` gets the CommonJS build, `import` the ES module build (both
 * built by scripts/build.mjs, which `npm test` runs first), and the package has no dependencies at all.
 */

const ROOT = join(__dirname, '..', '..');
const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
/** The workspace package's name, spliced into the child programs (it is this repository's own, not a dependency). */
const PKG = JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8')).name);

test('when a CommonJS program requires @hub/client, then it gets createHubClient and the tool names', () => {
  const out = run(['-e', `const c = require(${PKG}); console.log(typeof c.createHubClient, c.TOOL_NAMES.includes('email_send'), require.resolve(${PKG}))`]);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toMatch(/^function true .*packages\/client\/dist\/cjs\/index\.js$/);
});

test('when an ES module imports @hub/client, then it loads the ESM build', () => {
  const out = run([
    '--input-type=module',
    '-e',
    `import { createHubClient, HUB_ERROR_CODES } from ${PKG}; console.log(typeof createHubClient, HUB_ERROR_CODES.includes('RATE_LIMITED'), import.meta.resolve(${PKG}))`,
  ]);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toMatch(/^function true .*packages\/client\/dist\/esm\/index\.js$/);
});

test('when the client is installed, then it brings no dependencies and declares Node 20.3 or newer', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8'));
  expect(pkg.dependencies ?? {}).toEqual({});
  expect(pkg.engines.node).toBe('>=20.3');
});
