import { z } from 'zod';
import type { IntegrationId } from '../integrations/integrations';
import type { AnyTool } from './types';

export interface ToolRegistry {
  get(name: string): AnyTool | undefined;
  list(): readonly AnyTool[];
  names(): readonly string[];
  forIntegration(integration: IntegrationId): readonly AnyTool[];
}

const TOOL_NAME = /^[a-z][a-z0-9_]{1,63}$/;

/** Checks every tool once at start, so a malformed tool fails the boot rather than a request. */
export function createToolRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name "${tool.name}" must match ${TOOL_NAME}`);
    if (byName.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    if (!(tool.input instanceof z.ZodObject) || !(tool.input.def.catchall instanceof z.ZodNever)) {
      throw new Error(`tool "${tool.name}" must declare its input as z.strictObject(...)`);
    }
    if ((tool.integration === null) !== (tool.requiredScopes.length === 0)) {
      throw new Error(`tool "${tool.name}": required scopes go with an integration, and an integration needs scopes`);
    }
    byName.set(tool.name, tool);
  }
  const list = [...byName.values()];
  const names = list.map((t) => t.name).sort();
  return {
    get: (name) => byName.get(name),
    list: () => list,
    names: () => names,
    forIntegration: (integration) => list.filter((t) => t.integration === integration),
  };
}
