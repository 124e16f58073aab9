import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUTLOOK_PAGE, TABLE_END, TABLE_START, renderSearchTable } from '../../src/providers/microsoft/search-table';

/** docs/outlook.md's "Search on Outlook" table is the operator table as the code plans it, never a hand copy. */
test('when the page’s search table is compared with the one rendered from the operator table, then they are the same (else: npm run docs:outlook-search)', () => {
  const page = readFileSync(join(__dirname, '..', '..', OUTLOOK_PAGE), 'utf8');
  expect(page.indexOf(TABLE_START)).toBeGreaterThan(0);
  const current = page.slice(page.indexOf(TABLE_START) + TABLE_START.length, page.indexOf(TABLE_END)).trim();
  expect(current).toBe(renderSearchTable());
});
