// `npm run docs:config`: regenerates docs/configuration.md's tables from src/config/ and the Google sandbox's
// packages/google-sandbox/src/config.ts (through the built code, which the npm script builds first when it is
// stale). `--check` only reports whether the page is current.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const { CONFIG_PAGE, CONFIG_SCHEMAS, renderConfigTables, withConfigTables } = require(join(root, 'dist/src/config-docs.js'));

const pagePath = join(root, CONFIG_PAGE);
const page = readFileSync(pagePath, 'utf8');
const updated = withConfigTables(page, renderConfigTables(CONFIG_SCHEMAS));
if (process.argv.includes('--check')) {
  if (updated !== page) {
    process.stderr.write(`${CONFIG_PAGE}: the configuration tables are stale; run \`npm run docs:config\`\n`);
    process.exit(1);
  }
} else if (updated !== page) {
  writeFileSync(pagePath, updated);
  process.stdout.write(`${CONFIG_PAGE}: configuration tables regenerated\n`);
} else {
  process.stdout.write(`${CONFIG_PAGE}: configuration tables already current\n`);
}
