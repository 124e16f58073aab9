import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RequestHandler } from 'express';
import { sendText } from '../../http/respond';

/** openapi.yaml sits at the project root, above both src/ (tests) and dist/src/ (production). */
export function findOpenApiSpec(from = __dirname): string {
  for (let dir = from, i = 0; i < 5; i++, dir = dirname(dir)) {
    const candidate = join(dir, 'openapi.yaml');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`openapi.yaml not found above ${from}`);
}

export function openApiRoute(specPath = findOpenApiSpec()): RequestHandler {
  const spec = readFileSync(specPath, 'utf8');
  return (_req, res) => sendText(res, 200, 'application/yaml; charset=utf-8', spec);
}
