import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { DEMO_AGENT_ID, DEMO_CUSTOMER_ID } from '../../src/demo-lines';
import { adminToken } from '../helpers/admin';
import { scratchProject, shellEnv, startDemo } from '../helpers/demo';
import { freePort } from '../helpers/ports';

/**
 * packages/client as a consumer gets it: loaded from the workspace (`require` gets the CommonJS build, `import`
 * the ES module build), and packed with `npm pack` (which builds it), installed offline into a project of its own,
 * type-checked there with tsc (with the README's examples) and run against `npm run demo` — pinned versions, narrowed errors, the catalog, the
 * admin client and the webhook verifier, through the tarball alone.
 */

jest.setTimeout(300_000);

/** What the README's examples leave to the reader (a Hub's address, an Express app…), declared for tsc. */
const README_CONTEXT = `import { createHubAdminClient, createHubClient, verifyWebhook } from '@hub/client';
declare const process: { env: Record<string, string | undefined> };
declare const baseUrl: string, serviceSecret: string;
declare const hub: ReturnType<typeof createHubClient>, ids: { customerId: string; agentId: string };
declare function askAPersonToOpen(url: string): void;
declare function sendToThePerson(url: string, until: string): void;
declare function storeSecret(secret: string): void;
declare const express: { text(options: object): unknown };
type Res = { status(code: number): { send(body: string): void }; sendStatus(code: number): void };
declare const app: { post(path: string, parser: unknown, handler: (req: { body: string; headers: Record<string, string> }, res: Res) => unknown): void };
void [createHubAdminClient, verifyWebhook];
`;

/** packages/client/README.md's TypeScript examples, each in a function of its own, for tsc to check. */
function readmeExamples(): string {
  const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/^import .*;$/gm, ''));
  return README_CONTEXT + blocks.map((b, i) => `export async function example${i}() {\n${b}}\n`).join('\n');
} // pack (a tsc build), an install, a tsc check and a demo, on a loaded 2-core machine

const ROOT = join(__dirname, '..', '..');
const CLIENT = join(ROOT, 'packages', 'client');
const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
/** The workspace package's name, spliced into the child programs (it is this repository's own, not a dependency). */
const PKG = JSON.stringify(JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')).name);
/** npm, run by this very Node (the one first on PATH may be older). */
const npm = (args: string[], cwd: string) =>
  spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' },
  });

test('when a CommonJS program requires @hub/client, then it gets createHubClient and the tool names', () => {
  const out = run(['-e', `const c = require(${PKG}); console.log(typeof c.createHubClient, c.TOOL_NAMES.includes('email_send'), require.resolve(${PKG}))`]);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toMatch(/^function true .*packages\/client\/dist\/cjs\/index\.js$/);
});

test('when an ES module imports @hub/client, then it loads the ESM build', () => {
  const out = run([
    '--input-type=module',
    '-e',
    `import { createHubClient, HUB_ERROR_CODES } from ${PKG}; console.log(typeof createHubClient, HUB_ERROR_CODES.includes('RATE_LIMITED'), import.meta.resolve(${PKG}))`,
  ]);
  expect(out.stderr).toBe('');
  expect(out.stdout.trim()).toMatch(/^function true .*packages\/client\/dist\/esm\/index\.js$/);
});

test('when the client is installed, then it brings no dependencies, declares Node 20.3 or newer and can be packed', () => {
  const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
  expect(pkg.dependencies ?? {}).toEqual({});
  expect(pkg.engines.node).toBe('>=20.3');
  expect(pkg.private).toBeUndefined();
  expect(pkg.license).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).license);
  expect(pkg.scripts).toMatchObject({ prepare: expect.stringContaining('build.mjs'), prepack: expect.stringContaining('build.mjs') });
});

test('when a project installs the client by path from a checkout without dist/, then npm builds it on install', () => {
  // A copy of packages/client without dist/ (as a clean clone has it), inside the repository so its build finds
  // the TypeScript the repository's `npm install` brought, installed by path into a project of its own.
  const copy = mkdtempSync(join(ROOT, 'node_modules', '.hub-client-clean-'));
  const consumer = mkdtempSync(join(tmpdir(), 'hub-client-by-path-'));
  try {
    cpSync(CLIENT, copy, { recursive: true, filter: (from) => !from.startsWith(join(CLIENT, 'dist')) });
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = npm(['install', '--offline', copy], consumer);
    expect(installed.status).toBe(0);
    const imported = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import { createHubClient } from '@hub/client'; console.log(typeof createHubClient)`],
      {
        cwd: consumer,
        encoding: 'utf8',
      },
    );
    expect(imported.stderr).toBe('');
    expect(imported.stdout.trim()).toBe('function');
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(consumer, { recursive: true, force: true });
  }
});

test('when the client is packed and installed into a project of its own, then a typed program type-checks and runs against the demo', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hub-client-consumer-'));
  const project = scratchProject();
  try {
    // npm pack runs prepare/prepack, which build dist/ from the sources.
    const packed = npm(['pack', '--pack-destination', scratch], CLIENT);
    expect(packed.status).toBe(0);
    const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'))!;
    const listing = spawnSync('tar', ['-tzf', join(scratch, tarball)], { encoding: 'utf8' }).stdout.split('\n');
    expect(listing).toEqual(
      expect.arrayContaining(['package/README.md', 'package/dist/esm/index.js', 'package/dist/cjs/index.d.ts', 'package/dist/esm/admin.d.ts']),
    );
    expect(listing.filter((f) => f.includes('/src/') || f.endsWith('.tsbuildinfo') || f.endsWith('.build-stamp'))).toEqual([]);

    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const installed = npm(['install', '--offline', `./${tarball}`], scratch);
    expect(installed.stderr).toBe('');
    expect(installed.status).toBe(0);

    copyFileSync(join(__dirname, 'client-package', 'program.mts'), join(scratch, 'program.mts'));
    writeFileSync(join(scratch, 'readme.mts'), readmeExamples());
    const compilerOptions = {
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: [],
      module: 'nodenext',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
    };
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['program.mts', 'readme.mts'] }));
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', scratch], { cwd: scratch, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    // The CommonJS side of the package, from the same install.
    const required = spawnSync(process.execPath, ['-e', `console.log(Object.keys(require('@hub/client')).sort().join(' '))`], {
      cwd: scratch,
      encoding: 'utf8',
    });
    expect(required.stdout.trim()).toBe(
      'ADMIN_OPERATIONS HUB_ERROR_CODES TOOL_NAMES TOOL_SIDE_EFFECTS TOOL_VERSIONS createHubAdminClient createHubClient verifyWebhook',
    );

    const secret = randomBytes(24).toString('hex');
    const jwtSecret = randomBytes(32).toString('hex');
    const env = shellEnv({
      HUB_PORT: String(await freePort()),
      SANDBOX_PORT: String(await freePort()),
      HUB_SERVICE_SECRETS: secret,
      HUB_ADMIN_JWT_SECRET: jwtSecret,
      HUB_DATA_DIR: 'memory://',
    });
    const demo = await startDemo(project, env);
    try {
      const baseUrl = /curl -s (\S+)\/api\/internal\/tools\/ /.exec(demo.lines.join('\n'))![1]!;
      const token = adminToken({ role: 'hub_admin', key: jwtSecret });
      const ran = spawnSync(process.execPath, ['program.mjs', baseUrl, secret, token, DEMO_CUSTOMER_ID, DEMO_AGENT_ID], {
        cwd: scratch,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(ran.stderr).toBe('');
      expect(JSON.parse(ran.stdout)).toEqual({
        pinned: { tool: 'email_search@2', tool_version: '2.1.0', next: expect.any(String), messages: expect.any(Number) },
        old: { tool_version: '1.2.0', replacement: 'email_search@2' },
        missing: { code: 'INTEGRATION_NOT_CONNECTED', integration: 'google_gmail', url: true },
        catalog: { versions: ['2.1.0:active', '1.2.0:deprecated'], read_only: true, sunset: 'string', replacement: 'email_search@2', delete_destructive: true },
        connections: ['google_calendar:connected', 'google_gmail:connected'],
        link: { status: 201, intent: 'connect', url: '/integrations/google/connect' },
        policy: { created: 201, etag_header: true, denied: 'max_side_effects', replaced: 200, stale: 'PRECONDITION_FAILED', removed: true },
        webhook: { verified: 'connection.connected', tampered: 'mismatch' },
      });
    } finally {
      await demo.stop();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
});
