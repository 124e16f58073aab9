import { z } from 'zod';
import { shortScope } from '../integrations/catalog';
import type { ToolRegistry } from './registry';
import type { AnyTool, ToolStatus } from './types';
import { statusOf } from './versions';

/** One version of a tool as the catalog describes it. */
export interface CatalogVersion {
  version: string;
  status: ToolStatus;
  deprecated_at: string | null;
  sunset_at: string | null;
  /** What to call instead (`name@major`), for a deprecated or blocked version. */
  replacement: string | null;
  description: string;
  integration: string | null;
  required_scopes: string[];
  side_effects: string;
  /** Whether a call may change or remove what exists (false for reads, and for writes that only add). */
  destructive: boolean;
  /** False for a tool that writes, and for one that reads but changes something for some inputs (changesWhen). */
  read_only: boolean;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

/**
 * One tool: the version a bare name runs (its fields at the top level, as before versions existed, so a client
 * registering `name` with `input_schema` keeps working) and every version it has, newest first.
 */
export type CatalogEntry = { name: string } & CatalogVersion & { versions: CatalogVersion[] };

/**
 * JSON Schema for a tool's input, generated from the very zod schema that validates it, in the shape LLM
 * function-calling APIs take as-is (an object schema, no `$schema` key).
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return rest;
}

const instant = (at: string | undefined) => (at === undefined ? null : new Date(Date.parse(at)).toISOString());

function describe(tool: AnyTool): CatalogVersion {
  return {
    version: tool.version,
    status: statusOf(tool),
    deprecated_at: instant(tool.lifecycle?.deprecatedAt),
    sunset_at: instant(tool.lifecycle?.sunsetAt),
    replacement: tool.lifecycle?.replacement ?? null,
    description: tool.description,
    integration: tool.integration,
    required_scopes: tool.requiredScopes.map(shortScope),
    side_effects: tool.sideEffects,
    destructive: tool.destructive ?? false,
    read_only: tool.sideEffects === 'reads' && tool.changesWhen === undefined,
    input_schema: jsonSchema(tool.input, 'input'),
    output_schema: jsonSchema(tool.output, 'output'),
  };
}

/** Built once at start: the catalog only changes with a deploy. */
export function buildCatalog(registry: ToolRegistry): { tools: CatalogEntry[] } {
  return {
    tools: [...registry.list()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((tool) => {
        const versions = registry.versions(tool.name).map(describe);
        return { name: tool.name, ...versions.find((v) => v.version === tool.version)!, versions };
      }),
  };
}
