import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { generatedFiles } from '../../src/cli/generate';
import { openApiDocument } from '../../src/codegen/openapi';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { TOOL_EXAMPLES } from '../../src/tools/examples';
import { createToolRegistry } from '../../src/tools/registry';

/**
 * What `npm run generate` writes from the tool registry — openapi.yaml, the client's per-tool types and the Postman
 * collection — is checked in; these fail while a checked-in file differs from what the registry gives now.
 */

const ROOT = join(__dirname, '..', '..');

test.each(Object.keys(generatedFiles()))('when the registry changes, then the checked-in %s is regenerated (run `npm run generate`)', (path) => {
  expect(readFileSync(join(ROOT, path), 'utf8')).toBe(generatedFiles()[path]);
});

test('when a tool is registered, then it has example inputs its own schema accepts, the ones openapi.yaml shows', () => {
  const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));
  const shown = new Map<string, unknown>();
  for (const example of Object.values(spec.paths['/api/internal/tools/execute'].post.requestBody.content['application/json'].examples) as {
    value: { tool: string; inputs: unknown };
  }[]) {
    if (!shown.has(example.value.tool)) shown.set(example.value.tool, example.value.inputs);
  }
  for (const tool of BUILT_IN_TOOLS) {
    const example = TOOL_EXAMPLES[tool.name];
    expect({ tool: tool.name, example }).toEqual({ tool: tool.name, example: shown.get(tool.name) });
    expect({ tool: tool.name, valid: tool.input.safeParse(example).success }).toEqual({ tool: tool.name, valid: true });
  }
});

test('when openapi/base.yaml defines a component the generator writes, then generation refuses rather than silently replacing it', () => {
  const base = { openapi: '3.1.0', components: { schemas: { ExecuteRequest: { type: 'object' } } } };
  expect(() => openApiDocument(base, createToolRegistry(BUILT_IN_TOOLS))).toThrow('ExecuteRequest defined twice');
});
