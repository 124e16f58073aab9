import { OPERATOR_TABLE, type OperatorRow } from './search-operators';
import { type SearchPlan, filterOf, planSearch } from './search-plan';

/**
 * docs/outlook.md's "Search on Outlook" table, rendered from the operator table: each honoured row shows the
 * request the Hub really makes for its example (planned here, as a search would plan it), each refused row why.
 * `npm run docs:outlook-search` writes it between the markers; test/unit/outlook-search-table.test.ts fails when
 * the page differs.
 */

export const OUTLOOK_PAGE = 'docs/outlook.md';
export const TABLE_START =
  '<!-- outlook-search-table:start — generated from src/providers/microsoft/search-operators.ts by `npm run docs:outlook-search`; edit the rows there -->';
export const TABLE_END = '<!-- outlook-search-table:end -->';

/** The instant relative dates in the examples count from, and the account `me` names, as the page says. */
export const TABLE_NOW = Date.parse('2026-03-11T12:00:00Z');
const TABLE_ACCOUNT = 'ana@northwind.example';

const FOLDER_NAMES: Record<string, string> = {
  inbox: 'Inbox',
  sentitems: 'Sent Items',
  drafts: 'Drafts',
  deleteditems: 'Deleted Items',
  junkemail: 'Junk Email',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => `\`${text}\``;

/** What the Hub asks Graph for, in a table cell. */
export function describePlan(plan: SearchPlan): string {
  const parts: string[] = [];
  if (plan.mode === 'search') parts.push(`\`$search\` ${code(plan.kql!)}`);
  else parts.push(plan.filter ? `\`$filter\` ${code(filterOf(plan.filter))}` : 'a list, no condition');
  if (plan.folder) parts.push(`in ${FOLDER_NAMES[plan.folder]}`);
  else if (plan.exclude.length === 0) parts.push('in every folder');
  if (plan.local) parts.push(`then the Hub keeps ${code(filterOf(plan.local))}`);
  return parts.join('; ');
}

function outlookCell(row: OperatorRow): string {
  if (row.refused) return '**refused**';
  return describePlan(planSearch(row.example, { now: TABLE_NOW, ownAddress: TABLE_ACCOUNT }));
}

export function renderSearchTable(): string {
  const lines = ['| Gmail | Example | On Outlook (Graph) | Notes |', '|---|---|---|---|'];
  for (const row of OPERATOR_TABLE) lines.push(`| ${cell(code(row.operator))} | ${cell(code(row.example))} | ${cell(outlookCell(row))} | ${cell(row.note)} |`);
  return lines.join('\n');
}

/** `page` with the table between its markers replaced by `table`. */
export function withSearchTable(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${OUTLOOK_PAGE} lacks the table markers`);
  return `${page.slice(0, start + TABLE_START.length)}\n${table}\n${page.slice(end)}`;
}
