import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';

/**
 * Microsoft Graph v1.0's CSDL (csdl/graph-v1.0.csdl.xml, csdl/SOURCE.md), read with fast-xml-parser: the
 * structural truth every answer is checked against — each property the sandbox sends must exist on its type
 * (or a base type) and carry a value of the declared Edm type, complex type, enum member or collection.
 */

interface StructuredType {
  name: string;
  base: string | undefined;
  properties: Map<string, string>;
  open: boolean;
}

export interface GraphSchema {
  types: Map<string, StructuredType>;
  enums: Map<string, Set<string>>;
  /** Bound actions and functions by name: their parameter names (as declared) and return type. */
  operations: Map<string, { parameters: Map<string, string>; returnType: string | undefined }[]>;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

interface XmlProperty {
  Name: string;
  Type: string;
}
interface XmlType {
  Name: string;
  BaseType?: string;
  OpenType?: string;
  Property?: XmlProperty[];
  NavigationProperty?: XmlProperty[];
}
interface XmlOperation {
  Name: string;
  Parameter?: XmlProperty[];
  ReturnType?: { Type: string };
}

let cached: GraphSchema | undefined;

export const CSDL_PATH = join(__dirname, '..', '..', 'csdl', 'graph-v1.0.csdl.xml');

/**
 * The parsed schema as JSON beside the compiled module: `npm run build` writes it (build.mjs), so a started
 * sandbox does not spend seconds parsing 3.5 MB of XML on its first request. Used only when newer than the CSDL;
 * from source (the tests) there is none and the XML itself is read.
 */
const SCHEMA_CACHE = join(__dirname, 'graph-v1.0.schema.json');

interface CachedSchema {
  types: [string, { name: string; base: string | undefined; properties: [string, string][]; open: boolean }][];
  enums: [string, string[]][];
  operations: [string, { parameters: [string, string][]; returnType: string | undefined }[]][];
}

function readCache(): GraphSchema | undefined {
  if (!existsSync(SCHEMA_CACHE) || statSync(SCHEMA_CACHE).mtimeMs < statSync(CSDL_PATH).mtimeMs) return undefined;
  const c = JSON.parse(readFileSync(SCHEMA_CACHE, 'utf8')) as CachedSchema;
  return {
    types: new Map(c.types.map(([k, t]) => [k, { ...t, properties: new Map(t.properties) }])),
    enums: new Map(c.enums.map(([k, v]) => [k, new Set(v)])),
    operations: new Map(c.operations.map(([k, list]) => [k, list.map((o) => ({ ...o, parameters: new Map(o.parameters) }))])),
  };
}

/** Writes the cache (build.mjs, after compiling). */
export function writeSchemaCache(): void {
  const s = parseCsdl();
  const c: CachedSchema = {
    types: [...s.types].map(([k, t]) => [k, { ...t, properties: [...t.properties] }]),
    enums: [...s.enums].map(([k, v]) => [k, [...v]]),
    operations: [...s.operations].map(([k, list]) => [k, list.map((o) => ({ ...o, parameters: [...o.parameters] }))]),
  };
  writeFileSync(SCHEMA_CACHE, JSON.stringify(c));
}

/** The schema, once per process: from the build's cache when there is one, else parsed from the XML. */
export function loadGraphSchema(): GraphSchema {
  cached ??= readCache() ?? parseCsdl();
  return cached;
}

function parseCsdl(): GraphSchema {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) =>
      ['Schema', 'EntityType', 'ComplexType', 'EnumType', 'Member', 'Property', 'NavigationProperty', 'Action', 'Function', 'Parameter'].includes(name),
  });
  const doc = parser.parse(readFileSync(CSDL_PATH, 'utf8')) as {
    'edmx:Edmx': { 'edmx:DataServices': { Schema: Array<Record<string, unknown> & { Namespace: string }> } };
  };
  const schema: GraphSchema = { types: new Map(), enums: new Map(), operations: new Map() };
  for (const s of doc['edmx:Edmx']['edmx:DataServices'].Schema) {
    const ns = s.Namespace;
    for (const t of [...asArray(s.EntityType as XmlType[]), ...asArray(s.ComplexType as XmlType[])]) {
      const properties = new Map<string, string>();
      for (const p of [...asArray(t.Property), ...asArray(t.NavigationProperty)]) properties.set(p.Name, p.Type);
      schema.types.set(`${ns}.${t.Name}`, {
        name: `${ns}.${t.Name}`,
        base: t.BaseType?.replace(/^graph\./, 'microsoft.graph.'),
        properties,
        open: t.OpenType === 'true',
      });
    }
    for (const e of asArray(s.EnumType as Array<{ Name: string; Member?: Array<{ Name: string }> }>))
      schema.enums.set(`${ns}.${e.Name}`, new Set(asArray(e.Member).map((m) => m.Name)));
    for (const op of [...asArray(s.Action as XmlOperation[]), ...asArray(s.Function as XmlOperation[])]) {
      const list = schema.operations.get(op.Name) ?? [];
      list.push({ parameters: new Map(asArray(op.Parameter).map((p) => [p.Name, p.Type])), returnType: op.ReturnType?.Type });
      schema.operations.set(op.Name, list);
    }
  }
  return schema;
}

const qualify = (type: string) => type.replace(/^graph\./, 'microsoft.graph.');

/** The type's property table, its base types' included (nearest first). */
export function propertyType(schema: GraphSchema, typeName: string, property: string): string | undefined {
  for (let t = schema.types.get(qualify(typeName)); t; t = t.base ? schema.types.get(t.base) : undefined) {
    const found = t.properties.get(property);
    if (found) return found;
  }
  return undefined;
}

/** Is `sub` the type or one derived from it? */
function derivesFrom(schema: GraphSchema, sub: string, base: string): boolean {
  for (let t = schema.types.get(qualify(sub)); t; t = t.base ? schema.types.get(t.base) : undefined) if (t.name === qualify(base)) return true;
  return false;
}

const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2})$/;
const TIME_OF_DAY = /^\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?$/;

function checkPrimitive(type: string, value: unknown): string | undefined {
  switch (type) {
    case 'Edm.String':
      return typeof value === 'string' ? undefined : 'a string';
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? undefined : 'a boolean';
    case 'Edm.Int32':
    case 'Edm.Int64':
    case 'Edm.Int16':
    case 'Edm.Byte':
      return Number.isInteger(value) ? undefined : 'an integer';
    case 'Edm.Double':
    case 'Edm.Single':
    case 'Edm.Decimal':
      return typeof value === 'number' ? undefined : 'a number';
    case 'Edm.DateTimeOffset':
      return typeof value === 'string' && ISO_OFFSET.test(value) ? undefined : 'an ISO 8601 date-time with offset';
    case 'Edm.Date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? undefined : 'a date';
    case 'Edm.TimeOfDay':
      return typeof value === 'string' && TIME_OF_DAY.test(value) ? undefined : 'a time of day';
    case 'Edm.Duration':
      return typeof value === 'string' && /^-?P/.test(value) ? undefined : 'an ISO 8601 duration';
    case 'Edm.Binary':
      return typeof value === 'string' && /^[A-Za-z0-9+/=_-]*$/.test(value) ? undefined : 'base64';
    case 'Edm.Guid':
      return typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value) ? undefined : 'a GUID';
    default:
      return `an unsupported primitive ${type}`;
  }
}

/**
 * Departures of `value` from CSDL type `type` (`microsoft.graph.event`, `Collection(graph.attendee)`,
 * `Edm.String`…), each as "path: problem". Control annotations (`@odata.*`) are allowed anywhere.
 */
export function checkValue(schema: GraphSchema, type: string, value: unknown, path = '$'): string[] {
  if (value === null) return [];
  const collection = /^Collection\((.+)\)$/.exec(type);
  if (collection) {
    if (!Array.isArray(value)) return [`${path}: expected an array of ${collection[1]}`];
    return value.flatMap((v, i) => checkValue(schema, collection[1]!, v, `${path}[${i}]`));
  }
  if (type.startsWith('Edm.')) {
    const problem = checkPrimitive(type, value);
    return problem ? [`${path}: expected ${problem}, got ${JSON.stringify(value)?.slice(0, 60)}`] : [];
  }
  const q = qualify(type);
  const members = schema.enums.get(q);
  if (members) {
    // Flags enums serialise as comma-separated members.
    const bad = typeof value !== 'string' ? [String(value)] : value.split(',').filter((m) => !members.has(m.trim()));
    return bad.length ? [`${path}: ${bad.join(',')} is not a member of ${q}`] : [];
  }
  if (!schema.types.has(q)) return [`${path}: unknown type ${type}`];
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object of ${q}`];
  const record = value as Record<string, unknown>;
  // A derived type names itself in @odata.type (a fileAttachment where an attachment is declared).
  const declared = typeof record['@odata.type'] === 'string' ? (record['@odata.type'] as string).replace(/^#/, '') : q;
  if (!schema.types.has(declared) || !derivesFrom(schema, declared, q)) return [`${path}: @odata.type ${declared} does not derive from ${q}`];
  const problems: string[] = [];
  for (const [key, v] of Object.entries(record)) {
    if (key.startsWith('@odata.') || key.includes('@odata.')) continue;
    const propType = propertyType(schema, declared, key);
    if (!propType) {
      problems.push(`${path}.${key}: no such property on ${declared}`);
      continue;
    }
    problems.push(...checkValue(schema, propType, v, `${path}.${key}`));
  }
  return problems;
}
