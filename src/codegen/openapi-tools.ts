import { jsonSchema } from '../tools/catalog';
import { executeRequestSchema } from '../tools/execute-request';
import type { ToolRegistry } from '../tools/registry';
import type { AnyTool } from '../tools/types';
import { statusOf } from '../tools/versions';

type Schema = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const pascal = (snake: string) =>
  snake
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** A tool's JSON Schema as a component: self-contained, since a `#/$defs/…` reference would point at the spec's root. */
function embeddable(schema: Schema, what: string): Schema {
  if (/"\$(ref|defs)"/.test(JSON.stringify(schema))) throw new Error(`${what}: the JSON Schema uses $ref/$defs, which openapi.yaml cannot embed as is`);
  return schema;
}

/**
 * A tool's inputs without `default` keywords (each described in words instead, where the description does not
 * say it already): openapi-typescript, by default, types a property with a default as required — right for an
 * answer, where the server filled it in, but it would make every caller pass `max_results` and `include_body`.
 * The catalog keeps the keywords for function calling.
 */
function withoutDefaults(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const { default: value, ...rest } = schema as Schema;
  const out: Schema = { ...rest };
  if (value !== undefined && !/default/i.test(String(rest.description ?? '')))
    out.description = `${rest.description ?? ''} Default: ${JSON.stringify(value)}.`.trim();
  if (rest.properties) out.properties = Object.fromEntries(Object.entries(rest.properties as Schema).map(([k, v]) => [k, withoutDefaults(v)]));
  for (const key of ['items', 'additionalProperties']) if (key in rest) out[key] = withoutDefaults(rest[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(rest[key])) out[key] = (rest[key] as unknown[]).map(withoutDefaults);
  return out;
}

/** The component name of one version: the tool's name, with its version when the name has several. */
function baseName(tool: AnyTool, siblings: readonly AnyTool[]): string {
  if (siblings.length === 1) return pascal(tool.name);
  const major = tool.version.split('.')[0]!;
  const sameMajor = siblings.filter((t) => t.version.split('.')[0] === major).length > 1;
  return `${pascal(tool.name)}V${sameMajor ? tool.version.replace(/\./g, '_') : major}`;
}

const effects = (tool: AnyTool) =>
  tool.sideEffects === 'reads'
    ? tool.changesWhen
      ? 'reads; some inputs change what it reads'
      : 'reads'
    : tool.destructive
      ? 'writes: may change or remove what exists'
      : 'writes: only adds';

/** The execute request's fields other than `tool` and `inputs`, from the schema the route validates with. */
function requestFields(): Record<string, Schema> {
  const field = (name: keyof typeof executeRequestSchema.shape) => jsonSchema(executeRequestSchema.shape[name], 'input');
  return { ExecuteAgentId: field('agent_id'), ExecuteCustomerId: field('customer_id'), ExecuteUserId: field('user_id'), ExecuteContext: field('context') };
}

const oneOf = (property: string, branches: { name: string; values: readonly string[] }[], description: string): Schema => ({
  description,
  oneOf: branches.map((b) => ref(b.name)),
  discriminator: { propertyName: property, mapping: Object.fromEntries(branches.flatMap((b) => b.values.map((v) => [v, ref(b.name).$ref]))) },
});

/**
 * The tool part of openapi.yaml, from the registry: per runnable version its `inputs` and `result` schemas (the
 * JSON Schemas of the zod schemas that validate and shape them), its execute request and its success envelope;
 * then ExecuteRequest and SuccessEnvelope as `oneOf` over those, discriminated by `tool`. The discriminator's
 * mapping lists every spelling `tool` accepts (`email_search`, `email_search@2`, `email_search@2.0.0`…), each
 * to the version it runs; any other string is no request of this schema — the Hub answers it 404
 * TOOL_NOT_FOUND. Blocked versions never run (403 POLICY_DENIED), so they have no branch.
 */
export function toolSchemas(registry: ToolRegistry): Record<string, Schema> {
  const schemas: Record<string, Schema> = requestFields();
  const requests: { name: string; values: readonly string[] }[] = [];
  const successes: { name: string; values: readonly string[] }[] = [];
  for (const name of registry.names()) {
    const versions = registry.versions(name).filter((t) => statusOf(t) !== 'blocked');
    for (const tool of versions) {
      const base = baseName(tool, versions);
      const spellings = registry.spellings(tool);
      const label = `${tool.name} ${tool.version}`;
      const deprecated = statusOf(tool) === 'deprecated' ? { deprecated: true } : {};
      const tool_ = { type: 'string', enum: [...spellings], description: `${label}: its name, or a version of it that resolves to ${tool.version}.` };
      const inputs = withoutDefaults(embeddable(jsonSchema(tool.input, 'input'), `${label} input`)) as Schema;
      schemas[`${base}Inputs`] = { ...inputs, description: `What ${label} takes as \`inputs\`.` };
      schemas[`${base}Result`] = { ...embeddable(jsonSchema(tool.output, 'output'), `${label} output`), description: `What ${label} answers as \`result\`.` };
      schemas[`${base}Request`] = {
        type: 'object',
        description: `Run ${label} (${effects(tool)}${statusOf(tool) === 'deprecated' ? `; deprecated, call ${tool.lifecycle?.replacement} instead` : ''}): ${tool.description}`,
        ...deprecated,
        additionalProperties: false,
        required: ['tool', 'agent_id', 'customer_id', 'inputs'],
        properties: {
          tool: tool_,
          agent_id: ref('ExecuteAgentId'),
          customer_id: ref('ExecuteCustomerId'),
          user_id: ref('ExecuteUserId'),
          inputs: ref(`${base}Inputs`),
          context: ref('ExecuteContext'),
        },
      };
      schemas[`${base}Success`] = {
        type: 'object',
        description: `${label} ran.`,
        ...deprecated,
        additionalProperties: false,
        required: ['success', 'tool', 'result', 'metadata'],
        properties: {
          success: { const: true },
          tool: { ...tool_, description: 'The tool as the request named it.' },
          result: ref(`${base}Result`),
          metadata: ref('Metadata'),
        },
      };
      requests.push({ name: `${base}Request`, values: spellings });
      successes.push({ name: `${base}Success`, values: spellings });
    }
  }
  return {
    ExecuteRequest: oneOf('tool', requests, 'A tool call: `tool` names the tool (or a version of it), `inputs` are what that tool takes.'),
    SuccessEnvelope: oneOf('tool', successes, 'The tool ran: `result` is what the tool named by `tool` answers.'),
    ...schemas,
  };
}
