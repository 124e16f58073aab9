import type { z } from 'zod';
import { DEMO_CONFIG_SCHEMA, HUB_CONFIG_SCHEMA } from './config';
import { SANDBOX_ENV_SCHEMA } from '@hub/google-sandbox/config';
import { MS_SANDBOX_ENV_SCHEMA } from '@hub/microsoft-sandbox';

/**
 * docs/configuration.md's tables, rendered from the schemas in src/config/ (each section's variables, in the
 * page's order) and the two sandboxes' own (packages/google-sandbox/src/config.ts,
 * packages/microsoft-sandbox/src/config.ts): each variable's
 * `.describe('…')` sentence and the default the schema itself yields for an unset variable (or a
 * `.meta({ defaultText })` where the default is derived from another variable). `npm run docs:config` writes
 * them between the markers; a test fails when the page differs.
 */

export const TABLES_START =
  "<!-- config-tables:start — generated from src/config/ and the sandboxes' src/config.ts by `npm run docs:config`; edit the schema, not this table -->";
export const TABLES_END = '<!-- config-tables:end -->';

export interface DocumentedSchema {
  title: string;
  schema: z.ZodObject;
}

/** Every schema whose variables the configuration page's tables list, in their order. */
export const CONFIG_PAGE = 'docs/configuration.md';

export const CONFIG_SCHEMAS: readonly DocumentedSchema[] = [
  HUB_CONFIG_SCHEMA,
  { title: 'The Google sandbox (`packages/google-sandbox`: `npm run sandbox`, and beside the Hub in the demo)', schema: SANDBOX_ENV_SCHEMA },
  { title: 'The Microsoft sandbox (`packages/microsoft-sandbox`: `npm run sandbox:microsoft`, and beside the Hub in the demo)', schema: MS_SANDBOX_ENV_SCHEMA },
  DEMO_CONFIG_SCHEMA,
];

const code = (v: string) => `\`${v}\``;

function defaultOf(variable: z.ZodType): string {
  const meta = variable.meta() as { defaultText?: string } | undefined;
  if (meta?.defaultText) return meta.defaultText;
  const parsed = variable.safeParse(undefined);
  if (!parsed.success) return '**required**';
  const value: unknown = parsed.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'unset';
  if (Array.isArray(value)) return code(value.join(','));
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? 'unset' : code(JSON.stringify(value));
  return code(String(value));
}

/** One table per schema; throws when a variable has no description (every variable must say what it does). */
export function renderConfigTables(schemas: readonly DocumentedSchema[]): string {
  const undocumented: string[] = [];
  const tables = schemas.map(({ title, schema }) => {
    const rows = Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, variable]) => {
      const description = variable.description;
      if (!description) undocumented.push(name);
      return `| ${code(name)} | ${defaultOf(variable)} | ${(description ?? '').replace(/\|/g, '\\|')} |`;
    });
    return [`**${title}**`, '', '| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
  });
  if (undocumented.length > 0) throw new Error(`no .describe('…') on ${undocumented.join(', ')} in its config schema`);
  return tables.join('\n\n');
}

/** The page with its generated section replaced; throws when the markers are missing. */
export function withConfigTables(page: string, tables: string): string {
  const start = page.indexOf(TABLES_START);
  const end = page.indexOf(TABLES_END);
  if (start < 0 || end < start) throw new Error(`${CONFIG_PAGE} lacks the markers ${TABLES_START} … ${TABLES_END}`);
  return `${page.slice(0, start + TABLES_START.length)}\n${tables}\n${page.slice(end)}`;
}
