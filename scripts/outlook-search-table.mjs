// `npm run docs:outlook-search`: regenerates docs/outlook.md's "Search on Outlook" table from the operator
// table in src/providers/microsoft/search-operators.ts (through the built code, which the npm script builds first
// when it is stale). `--check` only reports whether the page is current.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const { OUTLOOK_PAGE, renderSearchTable, withSearchTable } = require(join(root, 'dist/src/providers/microsoft/search-table.js'));

const pagePath = join(root, OUTLOOK_PAGE);
const page = readFileSync(pagePath, 'utf8');
const updated = withSearchTable(page, renderSearchTable());
if (process.argv.includes('--check')) {
  if (updated !== page) {
    process.stderr.write(`${OUTLOOK_PAGE}: the search table is stale; run \`npm run docs:outlook-search\`\n`);
    process.exit(1);
  }
} else if (updated !== page) {
  writeFileSync(pagePath, updated);
  process.stdout.write(`${OUTLOOK_PAGE}: search table regenerated\n`);
} else {
  process.stdout.write(`${OUTLOOK_PAGE}: search table already current\n`);
}
