import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a new user of openapi.yaml gets: openapi-typescript and @hey-api/openapi-ts, each with its default options,
 * generate from the checked-in spec, and a small program type-checks against both — two tool calls with typed
 * inputs, typed result fields, and an error narrowed by its code to a required setup_url. The `@ts-expect-error`
 * lines fail the check as soon as inputs become `Record<string, never>` or `unknown`, or results `unknown`.
 */

const ROOT = join(__dirname, '..', '..');
/** A package's command, run by this very Node (the one on PATH may be older than @hey-api/openapi-ts's 22.18). */
const command = (name: string) => [join(ROOT, 'node_modules', '.bin', name)];

jest.setTimeout(180_000); // two generators and a tsc over hey-api's client, on a loaded 2-core machine

const IDS = "const ids = { agent_id: '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b', customer_id: '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00' };";

/** openapi-typescript: types only, so the program brings its own fetch. */
const WITH_OPENAPI_TYPESCRIPT = `
import type { paths } from './openapi-typescript.js';

type Execute = paths['/api/internal/tools/execute']['post'];
type Request = Execute['requestBody']['content']['application/json'];
type Success = Execute['responses'][200]['content']['application/json'];
type Failure = Execute['responses'][400]['content']['application/json'];

${IDS}
async function execute(body: Request): Promise<Success | Failure> {
  const res = await fetch('http://localhost:8080/api/internal/tools/execute', { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as Success | Failure;
}

export async function run(): Promise<string> {
  const created = await execute({ tool: 'calendar_create_event', ...ids, inputs: { title: 'Planning', start: '2027-01-18T14:00:00Z', end: '2027-01-18T15:00:00Z' } });
  const found = await execute({ tool: 'email_search@2', ...ids, inputs: { query: 'from:john@example.com', page_token: 'abc' } });
  // @ts-expect-error calendar_create_event has no input "subject"
  await execute({ tool: 'calendar_create_event', ...ids, inputs: { title: 'x', start: 'a', end: 'b', subject: 'no' } });
  // @ts-expect-error email_search needs a query
  await execute({ tool: 'email_search', ...ids, inputs: {} });
  if (created.success && created.tool === 'calendar_create_event') {
    const link: string = created.result.html_link;
    // @ts-expect-error the result is typed: no field "thread_id"
    created.result.thread_id;
    return created.result.event_id + link;
  }
  if (!created.success && created.error.code === 'INTEGRATION_NOT_CONNECTED') {
    const url: string = created.error.details.setup_url;
    return url;
  }
  if (found.success && found.tool === 'email_search@2') return String(found.result.next_page_token) + found.result.messages.length;
  return '';
}
`;

/** @hey-api/openapi-ts: its generated SDK function is the call. */
const WITH_HEY_API = `
import { executeTool } from './hey-api/index.js';

${IDS}
export async function run(): Promise<string> {
  const created = await executeTool({ body: { tool: 'calendar_create_event', ...ids, inputs: { title: 'Planning', start: '2027-01-18T14:00:00Z', end: '2027-01-18T15:00:00Z' } } });
  const found = await executeTool({ body: { tool: 'email_search@2', ...ids, inputs: { query: 'from:john@example.com', page_token: 'abc' } } });
  // @ts-expect-error calendar_create_event has no input "subject"
  await executeTool({ body: { tool: 'calendar_create_event', ...ids, inputs: { title: 'x', start: 'a', end: 'b', subject: 'no' } } });
  // @ts-expect-error email_search needs a query
  await executeTool({ body: { tool: 'email_search', ...ids, inputs: {} } });
  if (created.data?.tool === 'calendar_create_event') {
    const link: string = created.data.result.html_link;
    // @ts-expect-error the result is typed: no field "thread_id"
    created.data.result.thread_id;
    return created.data.result.event_id + link;
  }
  if (created.error?.error.code === 'INTEGRATION_NOT_CONNECTED') {
    const url: string = created.error.error.details.setup_url;
    return url;
  }
  if (found.data?.tool === 'email_search@2') return String(found.data.result.next_page_token) + found.data.result.messages.length;
  return '';
}
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-openapi-clients-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string, args: string[]) => {
  const res = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
};

function typeCheck(program: string, source: string): { status: number | null; output: string } {
  writeFileSync(join(dir, `${program}.ts`), source);
  writeFileSync(
    join(dir, `${program}.tsconfig.json`),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        skipLibCheck: true,
        types: [],
      },
      files: [`${program}.ts`],
    }),
  );
  return run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, `${program}.tsconfig.json`)]);
}

test('when openapi-typescript (default options) generates from openapi.yaml, then a program calling two tools and narrowing an error type-checks', () => {
  const generated = run(process.execPath, [...command('openapi-typescript'), 'openapi.yaml', '-o', join(dir, 'openapi-typescript.ts')]);
  expect({ status: generated.status, output: generated.status === 0 ? '' : generated.output }).toEqual({ status: 0, output: '' });
  const checked = typeCheck('with-openapi-typescript', WITH_OPENAPI_TYPESCRIPT);
  expect(checked.output).toBe('');
  expect(checked.status).toBe(0);
});

test('when @hey-api/openapi-ts (default options) generates from openapi.yaml, then its SDK calls two tools and narrows an error, type-checked', () => {
  const generated = run(process.execPath, [...command('openapi-ts'), '-i', 'openapi.yaml', '-o', join(dir, 'hey-api'), '--no-log-file']);
  expect({ status: generated.status, output: generated.status === 0 ? '' : generated.output }).toEqual({ status: 0, output: '' });
  const checked = typeCheck('with-hey-api', WITH_HEY_API);
  expect(checked.output).toBe('');
  expect(checked.status).toBe(0);
});
