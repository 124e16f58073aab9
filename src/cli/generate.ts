import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLIENT_TYPES_PATH, clientTypes } from '../codegen/client-types';
import { POSTMAN_PATH, postmanCollection, postmanJson } from '../codegen/postman';
import { BUILT_IN_TOOLS } from '../tools';
import { buildCatalog } from '../tools/catalog';
import { TOOL_EXAMPLES } from '../tools/examples';
import { createToolRegistry } from '../tools/registry';

/**
 * `npm run generate`: what agents use to reach the Hub, from its tool registry — the TypeScript client's per-tool
 * types and the Postman collection. Run it after adding or changing a tool; test/tooling/generated.test.ts fails
 * while a checked-in file is stale.
 */
export function generatedFiles(): Record<string, string> {
  const catalog = buildCatalog(createToolRegistry(BUILT_IN_TOOLS));
  return {
    [CLIENT_TYPES_PATH]: clientTypes(catalog),
    [POSTMAN_PATH]: postmanJson(postmanCollection(catalog, TOOL_EXAMPLES)),
  };
}

if (require.main === module) {
  const root = join(__dirname, '..', '..', '..');
  for (const [path, content] of Object.entries(generatedFiles())) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    process.stdout.write(`wrote ${path}\n`);
  }
}
