import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { generatedFiles } from '../../src/cli/generate';
import { openApiDocument } from '../../src/codegen/openapi';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { EXECUTE_EXAMPLES, TOOL_EXAMPLES } from '../../src/tools/examples';
import { createToolRegistry } from '../../src/tools/registry';

/**
 * What `npm run generate` writes from the tool registry — openapi.yaml, the client's per-tool types and the Postman
 * collection — is checked in; these fail while a checked-in file differs from what the registry gives now.
 */

const ROOT = join(__dirname, '..', '..');

test.each(Object.keys(generatedFiles()))('when the registry changes, then the checked-in %s is regenerated (run `npm run generate`)', (path) => {
  expect(readFileSync(join(ROOT, path), 'utf8')).toBe(generatedFiles()[path]);
});

test('when a tool is registered, then it has example inputs its own schema accepts, and openapi.yaml shows them', () => {
  const spec = parse(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'));
  const shown = spec.paths['/api/internal/tools/execute'].post.requestBody.content['application/json'].examples as Record<
    string,
    { value: { tool: string; inputs: unknown } }
  >;
  for (const tool of BUILT_IN_TOOLS) {
    const example = TOOL_EXAMPLES[tool.name];
    expect({ tool: tool.name, valid: tool.input.safeParse(example).success }).toEqual({ tool: tool.name, valid: true });
    expect(Object.values(shown).find((e) => e.value.tool === tool.name)?.value.inputs).toEqual(example);
  }
});

test('when openapi.yaml shows an execute example, then the version it names accepts its inputs', () => {
  const registry = createToolRegistry(BUILT_IN_TOOLS);
  for (const example of EXECUTE_EXAMPLES) {
    const resolved = registry.resolve(example.tool);
    expect({ example: example.name, kind: resolved.kind }).toEqual({ example: example.name, kind: 'found' });
    if (resolved.kind !== 'found') continue;
    expect({ example: example.name, valid: resolved.tool.input.safeParse(example.inputs).success }).toEqual({ example: example.name, valid: true });
  }
});

test('when openapi/base.yaml writes execute examples itself, then generation refuses: they come from src/tools/examples.ts', () => {
  const base = parse(readFileSync(join(ROOT, 'openapi/base.yaml'), 'utf8'));
  base.paths['/api/internal/tools/execute'].post.requestBody.content['application/json'].examples = {};
  expect(() => openApiDocument(base, createToolRegistry(BUILT_IN_TOOLS))).toThrow('generated from src/tools/examples.ts');
});

test('when openapi/base.yaml defines a component the generator writes, then generation refuses rather than silently replacing it', () => {
  const base = { openapi: '3.1.0', components: { schemas: { ExecuteRequest: { type: 'object' } } } };
  expect(() => openApiDocument(base, createToolRegistry(BUILT_IN_TOOLS))).toThrow('ExecuteRequest defined twice');
});
