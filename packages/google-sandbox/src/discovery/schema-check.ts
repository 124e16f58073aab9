import type { DiscoveryDocument, DiscoveryMethod, DiscoveryParameter, DiscoverySchema } from './documents';

/**
 * Checks values against a Discovery document's schemas, two ways:
 * - requests, as Google's front end does: the first unknown field or mistyped value is a 400 whose message is
 *   Google's own ("Invalid JSON payload received. Unknown name ..."), so a client cannot drift from the API;
 * - responses, strictly, listing every field the document does not define or whose type is wrong, so the
 *   sandbox cannot drift either (tests assert the list stays empty).
 */

/** Google reports field paths with proto (snake_case) names: 'start.date_time'. */
const protoName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const INT64 = new Set(['int64', 'uint64']);

function protoType(schema: DiscoverySchema): string {
  if (schema.type === 'string') return schema.format === 'byte' ? 'TYPE_BYTES' : INT64.has(schema.format ?? '') ? 'TYPE_INT64' : 'TYPE_STRING';
  if (schema.type === 'integer') return schema.format === 'uint32' ? 'TYPE_UINT32' : 'TYPE_INT32';
  if (schema.type === 'number') return 'TYPE_DOUBLE';
  if (schema.type === 'boolean') return 'TYPE_BOOL';
  return 'TYPE_MESSAGE';
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function resolveSchema(doc: DiscoveryDocument, schema: DiscoverySchema): DiscoverySchema {
  let s = schema;
  for (let i = 0; s.$ref && i < 8; i++) {
    const target = doc.schemas[s.$ref];
    if (!target) throw new Error(`Discovery ${doc.id}: unknown schema ${s.$ref}`);
    s = target;
  }
  return s;
}

/** Whether a scalar JSON value is acceptable where `schema` is expected (proto3 JSON mapping rules). */
function scalarOk(schema: DiscoverySchema, v: unknown, strict: boolean): boolean {
  switch (schema.type) {
    case 'string':
      if (INT64.has(schema.format ?? '')) {
        // Google always writes 64-bit integers as strings; it accepts numbers from clients too.
        return typeof v === 'string' ? /^-?\d+$/.test(v) : !strict && typeof v === 'number' && Number.isInteger(v);
      }
      if (typeof v !== 'string') return false;
      if (schema.format === 'byte') return BASE64.test(v);
      if (strict && schema.format === 'date-time') return !Number.isNaN(Date.parse(v));
      if (strict && schema.enum) return schema.enum.includes(v);
      return true;
    case 'integer':
      return (typeof v === 'number' && Number.isInteger(v)) || (!strict && typeof v === 'string' && /^-?\d+$/.test(v));
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true; // 'any'
  }
}

/** The first problem in a request body, as Google's message, or null. */
export function checkRequestBody(doc: DiscoveryDocument, ref: string, body: unknown): string | null {
  const walk = (schema0: DiscoverySchema, v: unknown, path: string): string | null => {
    const schema = resolveSchema(doc, schema0);
    if (v === null) return null; // proto3 JSON: null means "default value" for any field
    if (schema.type === 'object' || schema.properties) {
      if (!isPlainObject(v)) return `Invalid value at '${path}' (${protoType(schema)}), ${JSON.stringify(v)}`;
      for (const [key, value] of Object.entries(v)) {
        const child = schema.properties?.[key] ?? schema.additionalProperties;
        const isMap = schema.additionalProperties !== undefined && !schema.properties;
        const childPath = isMap ? `${path}[${key}]` : path ? `${path}.${protoName(key)}` : protoName(key);
        if (!child) return `Invalid JSON payload received. Unknown name "${key}"${path ? ` at '${path}'` : ''}: Cannot find field.`;
        const problem = walk(child, value, childPath);
        if (problem) return problem;
      }
      return null;
    }
    if (schema.type === 'array') {
      if (!Array.isArray(v)) return `Invalid value at '${path}' (${protoType(schema.items ? resolveSchema(doc, schema.items) : {})}), ${JSON.stringify(v)}`;
      for (let i = 0; i < v.length; i++) {
        const problem = walk(schema.items ?? { type: 'any' }, v[i], `${path}[${i}]`);
        if (problem) return problem;
      }
      return null;
    }
    return scalarOk(schema, v, false) ? null : `Invalid value at '${path}' (${protoType(schema)}), ${JSON.stringify(v)}`;
  };
  if (!isPlainObject(body)) return 'Invalid JSON payload received. Expected an object.';
  return walk({ $ref: ref }, body, '');
}

/** Every way a response body departs from its Discovery schema (empty when faithful). */
export function checkResponseBody(doc: DiscoveryDocument, ref: string, body: unknown): string[] {
  const problems: string[] = [];
  const walk = (schema0: DiscoverySchema, v: unknown, path: string) => {
    const schema = resolveSchema(doc, schema0);
    const at = path || '(root)';
    if (v === null || v === undefined) return problems.push(`${at}: null (Google omits empty fields)`);
    if (schema.type === 'object' || schema.properties) {
      if (!isPlainObject(v)) return problems.push(`${at}: expected an object`);
      for (const [key, value] of Object.entries(v)) {
        const child = schema.properties?.[key] ?? schema.additionalProperties;
        if (!child) problems.push(`${at}: "${key}" is not a field of ${schema.id ?? 'this object'}`);
        else walk(child, value, path ? `${path}.${key}` : key);
      }
      return;
    }
    if (schema.type === 'array') {
      if (!Array.isArray(v)) return problems.push(`${at}: expected an array`);
      v.forEach((item, i) => {
        walk(schema.items ?? { type: 'any' }, item, `${path}[${i}]`);
      });
      return;
    }
    if (!scalarOk(schema, v, true)) problems.push(`${at}: ${JSON.stringify(v)} is not a valid ${schema.type}${schema.format ? ` (${schema.format})` : ''}`);
  };
  walk({ $ref: ref }, body, '');
  return problems;
}

export type QueryValue = string | number | boolean | string[];

/** Query parameters checked against the method's and the API's parameters, converted to their types. */
export function checkQuery(
  doc: DiscoveryDocument,
  method: DiscoveryMethod,
  raw: Record<string, unknown>,
): { ok: true; query: Record<string, QueryValue> } | { ok: false; message: string } {
  const query: Record<string, QueryValue> = {};
  for (const [name, value] of Object.entries(raw)) {
    const param: DiscoveryParameter | undefined = method.parameters?.[name] ?? doc.parameters[name];
    if (param?.location !== 'query') {
      return {
        ok: false,
        message: `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${protoName(name)}' could not be found in request message.`,
      };
    }
    const values = (Array.isArray(value) ? value : [value]).map(String);
    if (!param.repeated && values.length > 1) {
      return { ok: false, message: `Invalid JSON payload received. Unknown name "${name}": Proto field is not repeating, cannot start list.` };
    }
    for (const v of values) {
      const bad = `Invalid value at '${protoName(name)}' (${protoType(param)}), "${v}"`;
      if (param.type === 'integer' && !/^-?\d+$/.test(v)) return { ok: false, message: bad };
      if (param.type === 'boolean' && v !== 'true' && v !== 'false') return { ok: false, message: bad };
      if (param.enum && !param.enum.includes(v)) return { ok: false, message: bad };
      if (param.type === 'integer') {
        const n = Number(v);
        if ((param.minimum !== undefined && n < Number(param.minimum)) || (param.maximum !== undefined && n > Number(param.maximum))) {
          return { ok: false, message: `Invalid value '${v}'. Values must be within the range: [${param.minimum ?? ''}, ${param.maximum ?? ''}]` };
        }
      }
    }
    query[name] = param.repeated ? values : param.type === 'integer' ? Number(values[0]) : param.type === 'boolean' ? values[0] === 'true' : values[0]!;
  }
  return { ok: true, query };
}
