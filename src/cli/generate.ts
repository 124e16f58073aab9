import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { CLIENT_API_TYPES_PATH, clientApiTypes } from '../codegen/client-api-types';
import { CLIENT_TYPES_PATH, clientTypes } from '../codegen/client-types';
import { OPENAPI_BASE_PATH, OPENAPI_PATH, openApiDocument, openApiYaml } from '../codegen/openapi';
import { POSTMAN_PATH, postmanCollection, postmanJson } from '../codegen/postman';
import { TOOL_REFERENCE_PATH, toolReference } from '../codegen/tool-reference';
import { BUILT_IN_TOOLS } from '../tools';
import { buildCatalog } from '../tools/catalog';
import { TOOL_EXAMPLES } from '../tools/examples';
import { createToolRegistry } from '../tools/registry';

/** The project root, above both src/cli (tests) and dist/src/cli (`npm run generate`). */
export function projectRoot(from = __dirname): string {
  for (let dir = from, i = 0; i < 5; i++, dir = dirname(dir)) if (existsSync(join(dir, OPENAPI_BASE_PATH))) return dir;
  throw new Error(`${OPENAPI_BASE_PATH} not found above ${from}`);
}

/**
 * `npm run generate`: what agents use to reach the Hub, from its tool registry — openapi.yaml (its hand-written
 * part is openapi/base.yaml), the TypeScript client's per-tool types, the Postman collection and docs/tools.md. Run it after
 * changing a tool, an error code's details or base.yaml; test/tooling/generated.test.ts fails while a checked-in
 * file is stale.
 */
export function generatedFiles(root = projectRoot()): Record<string, string> {
  const registry = createToolRegistry(BUILT_IN_TOOLS);
  const catalog = buildCatalog(registry);
  const base = parse(readFileSync(join(root, OPENAPI_BASE_PATH), 'utf8')) as Record<string, unknown>;
  return {
    [OPENAPI_PATH]: openApiYaml(openApiDocument(base, registry)),
    [CLIENT_TYPES_PATH]: clientTypes(catalog, registry),
    [CLIENT_API_TYPES_PATH]: clientApiTypes(openApiDocument(base, registry)),
    [POSTMAN_PATH]: postmanJson(postmanCollection(catalog, TOOL_EXAMPLES)),
    [TOOL_REFERENCE_PATH]: toolReference(catalog, TOOL_EXAMPLES),
  };
}

if (require.main === module) {
  const root = projectRoot();
  for (const [path, content] of Object.entries(generatedFiles(root))) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    process.stdout.write(`wrote ${path}\n`);
  }
}
