import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Checks an HTTP response against openapi.yaml: the path and method are documented, the status is documented
 * for that operation, and the body validates against the documented schema. Every component test's responses
 * go through this, so the spec cannot drift from the Hub silently.
 */

type Json = Record<string, unknown>;
const doc = parse(readFileSync(join(__dirname, '../../openapi.yaml'), 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, 'openapi');

const paths = Object.keys(doc.paths as Json).map((template) => ({
  template,
  // Path parameters match one segment; the trailing slash is optional, as the Hub serves both.
  regex: new RegExp(`^${template.replace(/\/$/, '').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
}));

/**
 * Test-only tools (test/helpers/tools.ts, the test_versioned versions) are no part of the Hub's API, so the spec's
 * success envelope — one branch per registered tool — does not list them: their successes are held to the
 * envelope with `result` left open.
 */
const EXECUTE_PATH = '/api/internal/tools/execute';
const testToolSuccess = ajv.compile({
  type: 'object',
  additionalProperties: false,
  required: ['success', 'tool', 'result', 'metadata'],
  properties: { success: { const: true }, tool: { type: 'string', pattern: '^test_' }, result: {}, metadata: { $ref: 'openapi#/components/schemas/Metadata' } },
});
const isTestTool = (body: unknown) => typeof (body as { tool?: unknown } | null)?.tool === 'string' && (body as { tool: string }).tool.startsWith('test_');

const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const cache = new Map<string, ValidateFunction>();

function validatorAt(ref: string): ValidateFunction {
  let validate = cache.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${ref}` });
    cache.set(ref, validate);
  }
  return validate;
}

function resolveResponse(location: string[]): { location: string[]; response: Json } {
  let node = location.reduce<unknown>((n, k) => (n as Json)[k], doc) as Json;
  while (typeof node.$ref === 'string') {
    location = (node.$ref as string).replace(/^#\//, '').split('/');
    node = location.reduce<unknown>((n, k) => (n as Json)[k], doc) as Json;
  }
  return { location, response: node };
}

export interface CheckedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

export function specProblems(method: string, pathname: string, res: CheckedResponse): string[] {
  const match = paths.find((p) => p.regex.test(pathname));
  const contentType = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  if (!match) {
    // Undocumented paths may only answer with the error envelope (unknown endpoint, or unauthenticated).
    const validate = validatorAt(pointer('components', 'schemas', 'ErrorEnvelope'));
    if (![401, 404].includes(res.status)) return [`undocumented path ${method} ${pathname} answered ${res.status}`];
    return validate(res.body) ? [] : [`${pathname}: ${ajv.errorsText(validate.errors)}`];
  }
  const operation = (doc.paths as Json)[match.template] as Json;
  const op = operation[method.toLowerCase()] as Json | undefined;
  if (!op) {
    if (res.status === 404 || res.status === 401) return specProblems(method, '/__undocumented__', res);
    // A method the path does not offer (GET /mcp): 405, naming in Allow only what the spec documents.
    const allow = String(res.headers.allow ?? '');
    const documented = Object.keys(operation).map((m) => m.toUpperCase());
    if (res.status === 405)
      return allow !== '' && allow.split(/,\s*/).every((m) => documented.includes(m)) ? [] : [`${method} ${match.template}: 405 with Allow "${allow}"`];
    return [`${method} ${match.template} is not documented`];
  }
  if (match.template === EXECUTE_PATH && res.status === 200 && isTestTool(res.body)) {
    return testToolSuccess(res.body) ? [] : [`${method} ${match.template} 200 (a test tool): ${ajv.errorsText(testToolSuccess.errors)}`];
  }
  const responses = op.responses as Json;
  const key = String(res.status) in responses ? String(res.status) : `${String(res.status)[0]}XX` in responses ? `${String(res.status)[0]}XX` : 'default';
  if (!(key in responses)) return [`${method} ${match.template}: status ${res.status} is not documented`];
  const { location, response } = resolveResponse(['paths', match.template, method.toLowerCase(), 'responses', key]);
  const content = response.content as Json | undefined;
  if (!content) return res.text ? [`${method} ${match.template} ${res.status}: documented without a body`] : [];
  if (!(contentType in content)) return [`${method} ${match.template} ${res.status}: content-type ${contentType} not documented`];
  const validate = validatorAt(pointer(...location, 'content', contentType, 'schema'));
  const body = contentType === 'application/json' ? res.body : res.text;
  return validate(body) ? [] : [`${method} ${match.template} ${res.status}: ${ajv.errorsText(validate.errors)}`];
}

export function assertMatchesSpec(method: string, url: string, res: CheckedResponse): void {
  const problems = specProblems(method, new URL(url, 'http://localhost').pathname, res);
  if (problems.length > 0) throw new Error(`response does not match openapi.yaml:\n  ${problems.join('\n  ')}`);
}
