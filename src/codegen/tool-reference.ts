import { codeToStatus, type ErrorCode } from '../core/errors';
import type { CatalogEntry, CatalogVersion } from '../tools/catalog';

/** Where `npm run generate` writes the tool reference. */
export const TOOL_REFERENCE_PATH = 'docs/tools.md';

type Schema = Record<string, unknown>;

/** Every call can meet these, whatever the tool: the envelope, the caller's credential, limits and policies. */
const EVERY_CALL: readonly ErrorCode[] = ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'POLICY_DENIED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'];
/** A tool that reaches a connected account can also meet these. */
const CONNECTED: readonly ErrorCode[] = ['INTEGRATION_NOT_CONNECTED', 'INTEGRATION_EXPIRED', 'INTEGRATION_PERMISSION_DENIED', 'EXTERNAL_API_ERROR'];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

/** A JSON Schema's type in a few words: `string (date-time)`, `array of string`, `object`, `"a" \| "b"`. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return union.map(typeOf).join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : String(schema.type ?? 'any');
  if (type === 'array' && schema.items) return `array of ${typeOf(schema.items as Schema)}`;
  return typeof schema.format === 'string' ? `${type} (${schema.format})` : type;
}

/** One row per property, nested objects flattened to `a.b` paths so every field a caller meets is listed. */
function rows(schema: Schema, prefix = ''): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const fallback = 'default' in property ? ` Default: \`${JSON.stringify(property.default)}\`.` : '';
    const description = `${String(property.description ?? '')}${/default/i.test(String(property.description ?? '')) ? '' : fallback}`.trim();
    const own = `| \`${path}\` | ${typeOf(property)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(description)} |`;
    const items = property.items as Schema | undefined;
    const nested = property.type === 'object' ? property : items?.type === 'object' ? items : undefined;
    return [own, ...(nested ? rows(nested, `${path}${nested === items ? '[]' : ''}.`) : [])];
  });
}

function table(schema: Schema, empty: string): string {
  const body = rows(schema);
  return body.length === 0 ? empty : ['| Field | Type | Required | Description |', '|---|---|---|---|', ...body].join('\n');
}

/** The codes a call of this tool can answer with, beyond those every call can: from what the tool declares. */
function errorsOf(version: CatalogVersion): string {
  const inputs = Object.keys((version.input_schema.properties ?? {}) as Schema);
  const own: ErrorCode[] = version.integration ? [...CONNECTED] : [];
  // An id the caller passes may be one the vendor does not know; a write can meet a request_id already used.
  if (version.integration && inputs.some((name) => name.endsWith('_id') || name === 'calendars')) own.push('RESOURCE_NOT_FOUND');
  if (version.side_effects !== 'reads') own.push('CONFLICT');
  const link = (code: ErrorCode) => `[\`${code}\`](contract.md#error-codes) (${codeToStatus(code)})`;
  return [`Every call: ${EVERY_CALL.map(link).join(', ')}.`, ...(own.length ? [`This tool also: ${own.map(link).join(', ')}.`] : [])].join(' ');
}

const effects = (v: CatalogVersion) =>
  v.side_effects === 'reads'
    ? v.read_only
      ? 'reads'
      : 'reads; some inputs change what it reads'
    : v.destructive
      ? 'writes: may change or remove what exists'
      : 'writes: only adds';

function section(entry: CatalogEntry, example: Record<string, unknown> | undefined): string {
  const older = entry.versions.filter((v) => v.version !== entry.version);
  const lines = [
    `## \`${entry.name}\``,
    '',
    entry.description,
    '',
    `- **Version** a bare name runs: \`${entry.version}\` (${entry.status})${older.length ? `; also ${older.map((v) => `\`${v.version}\` (${v.status}${v.replacement ? `, use \`${v.replacement}\`` : ''})`).join(', ')}` : ''}`,
    `- **Integration**: ${entry.integration ? `\`${entry.integration}\`, scopes ${entry.required_scopes.map((s) => `\`${s}\``).join(', ') || 'none'}` : 'none (no connected account needed)'}`,
    `- **Side effects**: ${effects(entry)}`,
    '',
    '### Inputs',
    '',
    table(entry.input_schema, 'None.'),
    '',
    '### Result',
    '',
    table(entry.output_schema, 'An empty object.'),
    '',
    '### Errors',
    '',
    errorsOf(entry),
  ];
  if (example)
    lines.push('', '### Example', '', '```json', JSON.stringify({ tool: entry.name, agent_id: '…', customer_id: '…', inputs: example }, null, 2), '```');
  return lines.join('\n');
}

/** docs/tools.md: every tool of the catalog with its inputs, result, errors and an example call. */
export function toolReference(catalog: { tools: CatalogEntry[] }, examples: Readonly<Record<string, Record<string, unknown>>>): string {
  const head = [
    '# Tool reference',
    '',
    '<!-- Generated from the tool registry by `npm run generate` (src/codegen/tool-reference.ts); edit the tool, not this page. -->',
    '',
    'Every tool the Hub runs, as `POST /api/internal/tools/execute/` takes it (see [the contract](contract.md) for the',
    'envelope). Inputs and results are the JSON Schemas the Hub validates and shapes with; the catalog',
    '(`GET /api/internal/tools/`) serves the same schemas for function calling. Errors list what a call of the tool can',
    'meet; [the contract](contract.md#error-codes) says what each code means and what its `details` carry.',
    '',
    '| Tool | Integration | Side effects |',
    '|---|---|---|',
    ...catalog.tools.map((t) => `| [\`${t.name}\`](#${t.name}) | ${t.integration ? `\`${t.integration}\`` : '—'} | ${effects(t)} |`),
  ];
  return `${[head.join('\n'), ...catalog.tools.map((t) => section(t, examples[t.name]))].join('\n\n')}\n`;
}
