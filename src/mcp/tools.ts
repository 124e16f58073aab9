import type { CatalogEntry } from '../tools/catalog';

/** What `tools/list` says about one tool (MCP 2025-06-18 `Tool`). */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  _meta: { 'hub/version': string; 'hub/integration': string | null; 'hub/required_scopes': string[] };
}

/** structuredContent of a failed call: the Hub's error, with what an agent needs to act on it at the top. */
const ERROR_RESULT_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'retryable'],
      properties: {
        code: { type: 'string', description: 'The Hub error code (INTEGRATION_NOT_CONNECTED, RATE_LIMITED, …).' },
        message: { type: 'string' },
        retryable: { type: 'boolean', description: 'Whether the same call may succeed later.' },
        retry_after_s: { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying.' },
        setup_url: { type: 'string', description: 'Where a person connects or reconnects the integration.' },
        details: { type: 'object' },
      },
    },
  },
} as const;

/**
 * A tool's output schema as MCP announces it: the tool's result, or the Hub's error. The error branch is there
 * because the SDK's Client validates structuredContent against outputSchema even on `isError: true` results
 * (modelcontextprotocol/typescript-sdk#1943, still so in 1.32); without it, no failure would reach an agent
 * using that Client. `$defs` stay at the root so the tool schema's `#/$defs/…` references still resolve.
 */
function outputSchemaOf(entry: CatalogEntry): McpTool['outputSchema'] {
  const { $defs, ...result } = entry.output_schema;
  return { type: 'object', ...($defs === undefined ? {} : { $defs }), anyOf: [result, ERROR_RESULT_SCHEMA] };
}

/**
 * The catalog as MCP tools. The hints follow from what the registry declares: a tool that only reads is
 * read-only and safe to repeat; a tool that writes is not idempotent without a request_id, and destructive only
 * when it may change or remove what exists (`destructive` in its definition: an update or a delete, not a create
 * or a send, which only add); a tool with an integration reaches Google (an open world), one without (hub_echo)
 * does not.
 */
export function mcpTools(catalog: { tools: readonly CatalogEntry[] }): McpTool[] {
  return catalog.tools.map((entry) => {
    const reads = entry.side_effects === 'reads';
    return {
      name: entry.name,
      title: entry.name,
      description: entry.description,
      inputSchema: { ...entry.input_schema, type: 'object' },
      outputSchema: outputSchemaOf(entry),
      annotations: { readOnlyHint: entry.read_only, destructiveHint: entry.destructive, idempotentHint: reads, openWorldHint: entry.integration !== null },
      _meta: { 'hub/version': entry.version, 'hub/integration': entry.integration, 'hub/required_scopes': entry.required_scopes },
    };
  });
}
