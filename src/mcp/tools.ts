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

/** What a person reads in a client's tool picker; a tool not named here gets its name in words. */
const TITLES: Record<string, string> = {
  hub_echo: 'Echo (connectivity check)',
  hub_current_time: 'Current time',
  calendar_list_calendars: 'List calendars',
  calendar_get_availability: 'Check calendar availability',
  calendar_find_optimal_times: 'Find meeting times',
  calendar_create_event: 'Create calendar event',
  calendar_update_event: 'Update calendar event',
  calendar_delete_event: 'Delete calendar event',
  email_search: 'Search email',
  email_read: 'Read email',
  email_check_replies: 'Check email replies',
  email_send: 'Send email',
};

const titleOf = (name: string) => TITLES[name] ?? `${name.charAt(0).toUpperCase()}${name.slice(1).replaceAll('_', ' ')}`;

/** Where an MCP client puts the request id: the call's `_meta`, beside the arguments (MCP refuses it as one). */
export const META_REQUEST_ID = 'a request id in the call\'s _meta ("_meta": {"request_id": "…"}, beside the arguments, not in them)';

/**
 * The tool's description as an MCP client must read it: the catalog says "context.request_id", the execute
 * body's field; over MCP that id travels in `_meta`. A write that does not mention it learns it here.
 */
function descriptionOf(entry: CatalogEntry): string {
  const text = entry.description.replaceAll('context.request_id', META_REQUEST_ID);
  if (entry.side_effects !== 'writes' || text !== entry.description) return text;
  return `${text} Pass ${META_REQUEST_ID} and reuse it when retrying: the Hub then runs the call at most once.`;
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
      title: titleOf(entry.name),
      description: descriptionOf(entry),
      inputSchema: { ...entry.input_schema, type: 'object' },
      outputSchema: outputSchemaOf(entry),
      annotations: { readOnlyHint: entry.read_only, destructiveHint: entry.destructive, idempotentHint: reads, openWorldHint: entry.integration !== null },
      _meta: { 'hub/version': entry.version, 'hub/integration': entry.integration, 'hub/required_scopes': entry.required_scopes },
    };
  });
}
