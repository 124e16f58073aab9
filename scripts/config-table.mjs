// `npm run docs:config`: regenerates the README's configuration tables from src/config.ts and the Google sandbox's
// packages/google-sandbox/src/config.ts (through the built code, which the npm script builds first when it is
// stale). `--check` only reports whether the README is current.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const { CONFIG_SCHEMAS, renderConfigTables, withConfigTables } = require(join(root, 'dist/src/config-docs.js'));

const readmePath = join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const updated = withConfigTables(readme, renderConfigTables(CONFIG_SCHEMAS));
if (process.argv.includes('--check')) {
  if (updated !== readme) {
    process.stderr.write('README.md: the configuration tables are stale; run `npm run docs:config`\n');
    process.exit(1);
  }
} else if (updated !== readme) {
  writeFileSync(readmePath, updated);
  process.stdout.write('README.md: configuration tables regenerated\n');
} else {
  process.stdout.write('README.md: configuration tables already current\n');
}
