import { z } from 'zod';
import { shortScope } from '../integrations/integrations';
import type { ToolRegistry } from './registry';

export interface CatalogEntry {
  name: string;
  version: string;
  description: string;
  integration: string | null;
  required_scopes: string[];
  side_effects: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

/**
 * JSON Schema for a tool's input, generated from the very zod schema that validates it, in the shape LLM
 * function-calling APIs take as-is (an object schema, no `$schema` key).
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return rest;
}

/** Built once at start: the catalog only changes with a deploy. */
export function buildCatalog(registry: ToolRegistry): { tools: CatalogEntry[] } {
  return {
    tools: [...registry.list()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((tool) => ({
        name: tool.name,
        version: tool.version,
        description: tool.description,
        integration: tool.integration,
        required_scopes: tool.requiredScopes.map(shortScope),
        side_effects: tool.sideEffects,
        input_schema: jsonSchema(tool.input, 'input'),
        output_schema: jsonSchema(tool.output, 'output'),
      })),
  };
}
