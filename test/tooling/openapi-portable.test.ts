import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Scalar, isCollection, parse, parseDocument, visit } from 'yaml';
import { openApiYaml } from '../../src/codegen/openapi';
import { userIdSchema } from '../../src/tools/execute-request';

/**
 * openapi.yaml as the tools around it read it: YAML 1.1 readers (PyYAML, under Schemathesis, openapi-core,
 * connexion and openapi-python-client; yamllint) must get the very document a 1.2 reader gets, and every `pattern`
 * must mean the same as a plain ECMAScript regex (no `u` flag: Spectral, many JSON Schema validators) as with it
 * (ajv, the Hub's zod) and compile in Python's `re`; and Spectral's `oas` ruleset (also in `npm run lint:openapi`)
 * finds no error.
 */

jest.setTimeout(120_000); // Spectral takes seconds, more on a loaded machine

const ROOT = join(__dirname, '..', '..');
const SPEC = readFileSync(join(ROOT, 'openapi.yaml'), 'utf8');

/** Python 3 with PyYAML, where the machine has them (the checks in JavaScript below run everywhere). */
const python = (script: string, input: string) => spawnSync('python3', ['-c', script], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const hasPyYaml = python('import yaml', '').status === 0;
const hasPython = python('import re', '').status === 0;
const withPyYaml = hasPyYaml ? test : test.skip;
const withPython = hasPython ? test : test.skip;

const PYYAML_TO_JSON = 'import json, sys, yaml\njson.dump(yaml.safe_load(sys.stdin.read()), sys.stdout, ensure_ascii=False)';

function pyYaml(text: string): unknown {
  const run = python(PYYAML_TO_JSON, text);
  if (run.status !== 0) throw new Error(`PyYAML could not read it:\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

function patterns(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => patterns(n, out));
  else if (typeof node === 'object' && node !== null)
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') out.add(value);
      else patterns(value, out);
    }
  return out;
}

/** Strings whose verdicts tell a pattern read with the `u` flag from one read without it. */
const PROBES = [
  'conv-1',
  'p{Cc}',
  'Cc',
  'a\u0007b',
  'x\u007f',
  '\u0085',
  '\u00a0',
  'Ana García',
  'emoji 😀',
  '😀',
  '',
  'abc123',
  '@1795392000',
  'ana@acme.example',
];

test('when openapi.yaml is read as YAML 1.1, then it is the same document as under YAML 1.2', () => {
  expect(parse(SPEC, { version: '1.1' })).toEqual(parse(SPEC));
});

withPyYaml('when PyYAML (YAML 1.1, Python) loads openapi.yaml, then it reads the same document', () => {
  expect(pyYaml(SPEC)).toEqual(JSON.parse(JSON.stringify(parse(SPEC))));
});

test('when a string sits plain in a flow collection of openapi.yaml, then it holds none of the characters that end it for YAML 1.1', () => {
  const bad: string[] = [];
  visit(parseDocument(SPEC), {
    Scalar(_, node: Scalar, path) {
      const parent = [...path].reverse().find((p) => isCollection(p));
      if (node.type === 'PLAIN' && isCollection(parent) && parent.flow && /[,?[\]{}#]|:(\s|$)/.test(String(node.source))) bad.push(String(node.source));
    },
  });
  expect(bad).toEqual([]);
});

test.each([
  ['a regex with ? in a flow mapping', { schema: { type: 'string', pattern: '^@-?\\d+$' } }],
  ['times, dates, 1.1 booleans and octals', { a: '10:00', b: '2027-01-18', c: 'yes', d: 'off', e: '0o17', f: '1_000', g: 'y', h: '09:00', i: '-05:00' }],
])('when the generator writes %s, then YAML 1.1 and 1.2 readers get the same strings back', (_, value) => {
  const text = openApiYaml(value);
  expect(parse(text, { version: '1.1' })).toEqual(value);
  expect(parse(text)).toEqual(value);
  if (hasPyYaml) expect(pyYaml(text)).toEqual(value);
});

test('when a pattern of openapi.yaml is compiled without the u flag, then it compiles and means what it means with it', () => {
  const differ: string[] = [];
  for (const pattern of patterns(parse(SPEC))) {
    const plain = new RegExp(pattern);
    const unicode = new RegExp(pattern, 'u');
    for (const probe of PROBES) if (plain.test(probe) !== unicode.test(probe)) differ.push(`${pattern} on ${JSON.stringify(probe)}`);
  }
  expect(differ).toEqual([]);
  expect(patterns(parse(SPEC)).size).toBeGreaterThan(10);
});

withPython("when Python's re compiles every pattern of openapi.yaml, then none is refused or warned about", () => {
  const script = [
    'import json, re, sys, warnings',
    "warnings.simplefilter('error')",
    'bad = []',
    'for p in json.load(sys.stdin):',
    '    try: re.compile(p)',
    '    except Exception as e: bad.append(p + ": " + str(e))',
    'print(json.dumps(bad))',
  ].join('\n');
  const run = python(script, JSON.stringify([...patterns(parse(SPEC))]));
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual([]);
});

test('when a name or id must not hold control characters, then the Hub and openapi.yaml refuse the same strings', () => {
  const spec = parse(SPEC);
  const pattern = new RegExp(spec.components.schemas.ExecuteUserId.anyOf[0].pattern);
  for (const probe of PROBES.filter((p) => p !== ''))
    expect({ probe, spec: pattern.test(probe) }).toEqual({ probe, spec: userIdSchema.safeParse(probe).success });
});

test("when Spectral's oas ruleset lints openapi.yaml, then it reports no error", () => {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', '.bin', 'spectral'), 'lint', 'openapi.yaml', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, SCARF_ANALYTICS: 'false' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const problems = JSON.parse(run.stdout) as { code: string; severity: number; path: string[]; message: string }[];
  expect(problems.filter((p) => p.severity === 0).map((p) => `#/${p.path.join('/')}: ${p.code}: ${p.message}`)).toEqual([]);
});
