/**
 * TypeScript types from the JSON Schemas zod 4 emits for the tools (the catalog's input_schema/output_schema).
 * Covers the keywords those schemas use — type, properties/required/additionalProperties, items/prefixItems,
 * enum, const, anyOf/oneOf, description — and refuses anything else it would have to guess at ($ref, allOf…),
 * so a tool with a new kind of schema fails generation instead of being typed loosely.
 */

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A property name as a TypeScript key: bare when it is an identifier, quoted otherwise. */
export const propKey = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
/** Keywords that say nothing about a value's type (annotations and value constraints): no type generator reads them. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'description',
  'default',
  'title',
  'examples',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  '$schema',
  'readOnly',
  'writeOnly',
  'deprecated',
]);
const IGNORED = ANNOTATION_KEYWORDS;
/** The keywords that decide a type, as zod 4 emits them. */
export const TYPE_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'enum',
  'const',
  'anyOf',
  'oneOf',
]);
const HANDLED = TYPE_KEYWORDS;

const literal = (v: unknown) => JSON.stringify(v);
const union = (parts: string[]) => {
  const unique = [...new Set(parts)];
  return unique.length === 1 ? unique[0]! : unique.map((p) => (p.includes('=>') ? `(${p})` : p)).join(' | ');
};

/** A JSDoc comment line, safe to embed (no comment terminator). */
export const doc = (text: string, pad: string) => `${pad}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;

export function tsType(schema: unknown, path: string, indent = ''): string {
  if (schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).every((k) => IGNORED.has(k)))) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object' || schema === null) throw new Error(`${path}: not a JSON Schema`);
  const s = schema as Schema;
  for (const key of Object.keys(s))
    if (!HANDLED.has(key) && !IGNORED.has(key)) throw new Error(`${path}: the keyword "${key}" is not supported by the type generator`);
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map(literal));
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (alternatives) return union(alternatives.map((a, i) => tsType(a, `${path}/anyOf/${i}`, indent)));
  const types = Array.isArray(s.type) ? (s.type as string[]) : s.type === undefined ? [] : [s.type as string];
  if (types.length === 0) return 'unknown';
  return union(types.map((t) => typeFor(t, s, path, indent)));
}

function typeFor(type: string, s: Schema, path: string, indent: string): string {
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
      if (Array.isArray(s.prefixItems)) return `[${s.prefixItems.map((p, i) => tsType(p, `${path}/prefixItems/${i}`, indent)).join(', ')}]`;
      const item = s.items === undefined ? 'unknown' : tsType(s.items, `${path}/items`, indent);
      return /[|&\s]/.test(item) && !item.startsWith('{') ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectType(s, path, indent);
    default:
      throw new Error(`${path}: unknown type "${type}"`);
  }
}

function objectType(s: Schema, path: string, indent: string): string {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set((s.required ?? []) as string[]);
  const inner = `${indent}  `;
  let body = '';
  for (const [name, prop] of Object.entries(properties)) {
    const description = (prop as Schema | undefined)?.description;
    if (typeof description === 'string') body += doc(description, inner);
    const key = propKey(name);
    body += `${inner}${key}${required.has(name) ? '' : '?'}: ${tsType(prop, `${path}/properties/${name}`, inner)};\n`;
  }
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== false)
    body += `${inner}[key: string]: ${extra === true ? 'unknown' : tsType(extra, `${path}/additionalProperties`, inner)};\n`;
  if (body === '') return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${body}${indent}}`;
}
