import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadGraphSchema } from '../src/csdl/schema';

/**
 * The `microsoft-sandbox` command as a person starts it: the built package (dist/, built here if absent), its
 * banner, and a sandbox that answers — the discovery document and, in sandbox mode, the demo tenant's people.
 */

const PKG = join(__dirname, '..');
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGTERM');
});

test('when the command starts with MS_SANDBOX_PORT=0 and the control API on, then it prints its URL and serves the demo tenant', async () => {
  if (!existsSync(join(PKG, 'dist', 'main.js'))) expect(spawnSync(process.execPath, [join(PKG, 'build.mjs')]).status).toBe(0);
  child = spawn(process.execPath, [join(PKG, 'bin', 'microsoft-sandbox.js')], {
    env: { PATH: process.env.PATH, MS_SANDBOX_PORT: '0', MS_SANDBOX_CONTROL: 'on', MS_SANDBOX_SEED: '3' },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const started = Date.now();
  while (!/listening on (http:\/\/\S+)/.test(out) && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  expect(url).toBeDefined();
  expect(out).toContain('accounts: ana@northwind.example, ben@northwind.example, chen@northwind.example');
  const oidc = (await (await fetch(`${url}/organizations/v2.0/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string };
  expect(oidc.authorization_endpoint).toBe(`${url}/organizations/oauth2/v2.0/authorize`);
  const accounts = (await (await fetch(`${url}/_sandbox/accounts`)).json()) as { accounts: { time_zone: string }[] };
  expect(accounts.accounts.map((a) => a.time_zone)).toEqual(['Romance Standard Time', 'Pacific Standard Time', 'GMT Standard Time']);
});

test('when the built package loads the schema from its cache, then it is the schema the CSDL itself gives', () => {
  if (!existsSync(join(PKG, 'dist', 'csdl', 'graph-v1.0.schema.json'))) expect(spawnSync(process.execPath, [join(PKG, 'build.mjs')]).status).toBe(0);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(PKG, 'dist', 'csdl', 'schema.js')) as typeof import('../src/csdl/schema');
  expect(built.loadGraphSchema()).toEqual(loadGraphSchema());
});

test('when a variable is wrong, then the command names it and exits 1', () => {
  if (!existsSync(join(PKG, 'dist', 'main.js'))) expect(spawnSync(process.execPath, [join(PKG, 'build.mjs')]).status).toBe(0);
  const run = spawnSync(process.execPath, [join(PKG, 'bin', 'microsoft-sandbox.js')], {
    env: { PATH: process.env.PATH, MS_SANDBOX_PORT: 'eighty' },
    encoding: 'utf8',
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('MS_SANDBOX_PORT: must be an integer between 0 and 65535');
});
