import { ANNOTATION_KEYWORDS, TYPE_KEYWORDS, doc, propKey } from './json-schema-ts';

/**
 * packages/client's types for everything but the tools — execute's `metadata`, the catalog, the status answer and
 * the whole admin API (`/api/admin/…`: bodies, answers, path and query parameters, If-Match) — from openapi.yaml's
 * own document (openapi/base.yaml plus the generated components), so the client and the spec cannot disagree.
 * Also a table of every admin operation (method, path, parameters) that the client's admin methods are built
 * from: an operation added to base.yaml becomes a client method at the next `npm run generate`.
 */

type Json = Record<string, unknown>;

export const CLIENT_API_TYPES_PATH = 'packages/client/src/api.generated.ts';

/** Component schemas the client names outside the admin API. */
const ROOTS = ['Metadata', 'ToolVersionFields', 'IntegrationStatusResponse'];
/** What openapi.yaml's schemas carry beyond the tools' own: annotations OpenAPI adds, and references. */
const IGNORED = new Set([...ANNOTATION_KEYWORDS, 'example', 'discriminator', 'unevaluatedProperties']);
const HANDLED = new Set([...TYPE_KEYWORDS, '$ref', 'allOf']);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A description as one doc line: its first paragraph (a Markdown table stays in openapi.yaml). */
const summary = (text: string, pad: string) => doc(text.split(/\n\s*\n|\n\|/)[0]!.trim(), pad);
const union = (parts: string[]) => {
  const unique = [...new Set(parts)];
  return unique.length === 1 ? unique[0]! : unique.join(' | ');
};

class Writer {
  /** Component schemas to emit as named types, in the order first met. */
  readonly named = new Map<string, string | null>();
  constructor(private readonly spec: Json) {}

  private component(kind: string, name: string): Json {
    const found = ((this.spec.components as Json | undefined)?.[kind] as Json | undefined)?.[name];
    if (!found || typeof found !== 'object') throw new Error(`openapi.yaml: #/components/${kind}/${name} is missing`);
    return found as Json;
  }

  /** Follows a `$ref` to a response, parameter or header (schemas stay named types). */
  deref(node: Json): Json {
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    const [, , kind, name] = ref.split('/');
    return this.deref(this.component(kind!, name!));
  }

  /** The named type of a component schema, emitted once (with everything it refers to). */
  ref(name: string): string {
    if (!this.named.has(name)) {
      this.named.set(name, null);
      const schema = this.component('schemas', name);
      const type = this.type(schema, name, '');
      const description = typeof schema.description === 'string' ? summary(schema.description, '') : '';
      this.named.set(name, `${description}export type ${name} = ${type};\n`);
    }
    return name;
  }

  type(schema: unknown, path: string, indent: string): string {
    if (schema === true) return 'unknown';
    if (schema === false) return 'never';
    if (typeof schema !== 'object' || schema === null) throw new Error(`${path}: not a JSON Schema`);
    const s = schema as Json;
    for (const k of Object.keys(s))
      if (!HANDLED.has(k) && !IGNORED.has(k)) throw new Error(`${path}: the keyword "${k}" is not supported by the client's type generator`);
    if (typeof s.$ref === 'string') {
      const match = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(s.$ref);
      if (!match) throw new Error(`${path}: $ref ${s.$ref} is not a component schema`);
      return this.ref(match[1]!);
    }
    const parts: string[] = [];
    if (Array.isArray(s.allOf)) parts.push(...s.allOf.map((a, i) => this.type(a, `${path}/allOf/${i}`, indent)));
    const own = this.ownType(s, path, indent);
    if (own !== undefined) parts.push(own);
    if (parts.length === 0) return 'unknown';
    return parts.length === 1 ? parts[0]! : parts.map((p) => (p.includes(' | ') ? `(${p})` : p)).join(' & ');
  }

  private ownType(s: Json, path: string, indent: string): string | undefined {
    if ('const' in s) return JSON.stringify(s.const);
    if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
    const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
    if (alternatives) return union(alternatives.map((a, i) => this.type(a, `${path}/anyOf/${i}`, indent)));
    const types = Array.isArray(s.type) ? (s.type as string[]) : s.type === undefined ? (s.properties ? ['object'] : []) : [s.type as string];
    if (types.length === 0) return undefined;
    return union(types.map((t) => this.typeFor(t, s, path, indent)));
  }

  private typeFor(type: string, s: Json, path: string, indent: string): string {
    switch (type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array': {
        if (Array.isArray(s.prefixItems)) return `[${s.prefixItems.map((p, i) => this.type(p, `${path}/prefixItems/${i}`, indent)).join(', ')}]`;
        const item = s.items === undefined ? 'unknown' : this.type(s.items, `${path}/items`, indent);
        return /[|&\s]/.test(item) && !item.startsWith('{') ? `Array<${item}>` : `${item}[]`;
      }
      case 'object':
        return this.objectType(s, path, indent);
      default:
        throw new Error(`${path}: unknown type "${type}"`);
    }
  }

  private objectType(s: Json, path: string, indent: string): string {
    const properties = (s.properties ?? {}) as Json;
    const required = new Set((s.required ?? []) as string[]);
    const inner = `${indent}  `;
    let body = '';
    for (const [name, prop] of Object.entries(properties)) {
      const description = (prop as Json | undefined)?.description;
      if (typeof description === 'string') body += summary(description, inner);
      body += `${inner}${propKey(name)}${required.has(name) ? '' : '?'}: ${this.type(prop, `${path}/properties/${name}`, inner)};\n`;
    }
    const extra = s.additionalProperties;
    if (extra !== undefined && extra !== false)
      body += `${inner}[key: string]: ${extra === true ? 'unknown' : this.type(extra, `${path}/additionalProperties`, inner)};\n`;
    // Properties named only in `required` (a sub-schema narrowing an allOf'd one) are required there too.
    for (const name of required) if (!(name in properties)) body += `${inner}${propKey(name)}: unknown;\n`;
    if (body === '') return Object.keys(properties).length === 0 && extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
    return `{\n${body}${indent}}`;
  }
}

interface Operation {
  id: string;
  method: string;
  path: string;
  summary: string;
  pathParams: string[];
  query: string[];
  ifMatch: boolean;
  params: string;
  queryType: string;
  body: string | null;
  answers: string;
}

function operations(spec: Json, w: Writer): Operation[] {
  const out: Operation[] = [];
  for (const [path, itemRaw] of Object.entries(spec.paths as Json)) {
    if (!path.startsWith('/api/admin/')) continue;
    const item = itemRaw as Json;
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const id = op.operationId;
      if (typeof id !== 'string') throw new Error(`openapi.yaml: ${method.toUpperCase()} ${path} has no operationId`);
      const params = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map((p) => w.deref(p));
      const field = (p: Json, indent: string) =>
        `${typeof p.description === 'string' ? summary(p.description, indent) : ''}${indent}${propKey(p.name as string)}${p.required ? '' : '?'}: ${w.type(p.schema, `${id}/${p.name}`, indent)};\n`;
      const inPath = params.filter((p) => p.in === 'path');
      const inQuery = params.filter((p) => p.in === 'query');
      for (const p of params)
        if (p.in === 'header' && p.name !== 'If-Match') throw new Error(`openapi.yaml: ${id} takes header ${String(p.name)}, which the client does not send`);
      const objectOf = (ps: Json[]) => (ps.length === 0 ? 'Record<string, never>' : `{\n${ps.map((p) => field(p, '    ')).join('')}  }`);
      const bodySchema = (w.deref((op.requestBody ?? {}) as Json).content as Json | undefined)?.['application/json'] as Json | undefined;
      const answers: string[] = [];
      for (const [status, responseRaw] of Object.entries(op.responses as Json)) {
        if (!/^2\d\d$/.test(status)) continue;
        const response = w.deref(responseRaw as Json);
        const media = (response.content as Json | undefined)?.['application/json'] as Json | undefined;
        if (!media) throw new Error(`openapi.yaml: ${id} answers ${status} without application/json`);
        answers.push(`    ${status}: ${w.type(media.schema, `${id}/${status}`, '    ')};\n`);
      }
      out.push({
        id,
        method: method.toUpperCase(),
        path,
        summary: typeof op.summary === 'string' ? op.summary : id,
        pathParams: inPath.map((p) => p.name as string),
        query: inQuery.map((p) => p.name as string),
        ifMatch: params.some((p) => p.in === 'header' && p.name === 'If-Match'),
        params: objectOf(inPath),
        queryType: objectOf(inQuery),
        body: bodySchema ? w.type(bodySchema.schema, `${id}/body`, '  ') : null,
        answers: `{\n${answers.join('')}  }`,
      });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

export function clientApiTypes(spec: Json): string {
  const w = new Writer(spec);
  for (const root of ROOTS) w.ref(root);
  const ops = operations(spec, w);
  const table = ops
    .map(
      (o) =>
        `  ${o.id}: { method: '${o.method}', path: '${o.path}', pathParams: ${JSON.stringify(o.pathParams)}, query: ${JSON.stringify(o.query)}, ifMatch: ${o.ifMatch}, body: ${o.body !== null} },\n`,
    )
    .join('');
  const types = ops
    .map(
      (o) =>
        `${doc(`${o.method} ${o.path}: ${o.summary}.`, '')}export interface ${o.id[0]!.toUpperCase()}${o.id.slice(1)}Operation {\n  params: ${o.params};\n  query: ${o.queryType};\n  body: ${o.body ?? 'undefined'};\n  /** The answer per success status. */\n  answers: ${o.answers};\n}\n`,
    )
    .join('\n');
  return [
    "// Generated by `npm run generate` from openapi.yaml's sources (openapi/base.yaml and the generated components): do not edit.",
    '',
    ...[...w.named.values()].map((v) => v!),
    types,
    '/** Every admin operation, by operationId. */',
    `export interface AdminOperations {\n${ops.map((o) => `  ${o.id}: ${o.id[0]!.toUpperCase()}${o.id.slice(1)}Operation;\n`).join('')}}\n`,
    '/** How each admin operation is sent: what the client builds its requests from. */',
    `export const ADMIN_OPERATIONS = {\n${table}} as const;\n`,
  ].join('\n');
}
