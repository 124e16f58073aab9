import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderConfigTables } from '../../src/config-docs';
import { ConfigError, HUB_CONFIG_SCHEMA, loadConfig } from '../../src/config';
import { testEnv } from '../helpers/env';

const CLIENT_ID = '0b3f7a6e-2c1d-4e8f-9a5b-6c7d8e9f0a1b';
const base = { HUB_PUBLIC_URL: 'https://hub.example.com' };
const loadMicrosoftConfig = (env: Record<string, string | undefined>) => loadConfig(testEnv(env)).microsoft;
const problemsOf = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(testEnv(env));
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.filter((p) => p.includes('MICROSOFT'));
    throw err;
  }
};

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'hub-ms-config-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the Microsoft configuration section', () => {
  it('when nothing is set, then Microsoft is unconfigured with the real endpoints, organizations and the derived redirect URI', () => {
    expect(loadMicrosoftConfig(base)).toEqual({
      clientId: undefined,
      clientSecret: undefined,
      tenant: 'organizations',
      authorityUrl: 'https://login.microsoftonline.com',
      graphUrl: 'https://graph.microsoft.com/v1.0',
      redirectUri: 'https://hub.example.com/integrations/microsoft/callback',
      timeoutMs: 10_000,
      sandbox: false,
      mailboxLimits: { requestsPerWindow: 10_000, windowS: 600, maxInFlight: 4, uploadBytesPerWindow: 157_286_400, uploadWindowS: 300 },
    });
  });

  it('when the sandbox URL is set, then the authority and Graph move there, and the explicit variables still win', () => {
    const c = loadMicrosoftConfig({ ...base, HUB_MICROSOFT_SANDBOX_URL: 'http://127.0.0.1:8091/' });
    expect([c.authorityUrl, c.graphUrl, c.sandbox]).toEqual(['http://127.0.0.1:8091', 'http://127.0.0.1:8091/v1.0', true]);
    const d = loadMicrosoftConfig({ ...base, HUB_MICROSOFT_SANDBOX_URL: 'http://127.0.0.1:8091', HUB_MICROSOFT_GRAPH_URL: 'https://graph.microsoft.us/v1.0/' });
    expect(d.graphUrl).toBe('https://graph.microsoft.us/v1.0');
  });

  it.each([
    ['common', 'common'],
    ['ORGANIZATIONS', 'organizations'],
    ['7F3C9A52-4E1B-4D2A-9C61-2B8E5F0D1A77', '7f3c9a52-4e1b-4d2a-9c61-2b8e5f0d1a77'],
    ['contoso.onmicrosoft.com', 'contoso.onmicrosoft.com'],
  ])('when the tenant is %s, then it is used as %s', (value, expected) => {
    expect(loadMicrosoftConfig({ ...base, HUB_MICROSOFT_TENANT: value }).tenant).toBe(expected);
  });

  it('when the tenant is consumers (or its id) or not a tenant at all, then it is refused saying why', () => {
    expect(problemsOf({ ...base, HUB_MICROSOFT_TENANT: 'consumers' })).toEqual([
      expect.stringMatching(/^HUB_MICROSOFT_TENANT: personal Microsoft accounts are not supported/),
    ]);
    expect(problemsOf({ ...base, HUB_MICROSOFT_TENANT: '9188040d-6c67-4c5b-b112-36a304b66dad' })).toHaveLength(1);
    expect(problemsOf({ ...base, HUB_MICROSOFT_TENANT: 'not a tenant' })).toEqual([expect.stringMatching(/^HUB_MICROSOFT_TENANT: must be organizations/)]);
  });

  it('when only one of the client id and secret is set, or the id is not a GUID, then each problem is named, never the secret', () => {
    expect(problemsOf({ ...base, HUB_MICROSOFT_CLIENT_ID: CLIENT_ID })).toEqual([expect.stringMatching(/^HUB_MICROSOFT_CLIENT_SECRET: set .* together/)]);
    const problems = problemsOf({ ...base, HUB_MICROSOFT_CLIENT_ID: 'my-app', HUB_MICROSOFT_CLIENT_SECRET: 's3cr3t~value' });
    expect(problems).toEqual([expect.stringMatching(/^HUB_MICROSOFT_CLIENT_ID: must be the Application \(client\) ID/)]);
    expect(problems.join(' ')).not.toContain('s3cr3t');
  });

  it('when the secret comes from HUB_MICROSOFT_CLIENT_SECRET_FILE, then its content is used without the trailing newline; both set is refused naming both', () => {
    const path = join(dir, 'secret');
    writeFileSync(path, 'file~secret~value\n');
    const c = loadMicrosoftConfig({ ...base, HUB_MICROSOFT_CLIENT_ID: CLIENT_ID, HUB_MICROSOFT_CLIENT_SECRET_FILE: path });
    expect(c.clientSecret).toBe('file~secret~value');
    const both = problemsOf({ ...base, HUB_MICROSOFT_CLIENT_ID: CLIENT_ID, HUB_MICROSOFT_CLIENT_SECRET: 'x', HUB_MICROSOFT_CLIENT_SECRET_FILE: path });
    expect(both).toEqual(['HUB_MICROSOFT_CLIENT_SECRET and HUB_MICROSOFT_CLIENT_SECRET_FILE are both set: set one of them, not both']);
    expect(problemsOf({ ...base, HUB_MICROSOFT_CLIENT_ID: CLIENT_ID, HUB_MICROSOFT_CLIENT_SECRET_FILE: join(dir, 'missing') })).toEqual([
      expect.stringMatching(/^HUB_MICROSOFT_CLIENT_SECRET_FILE: cannot read .* \(ENOENT\)$/),
    ]);
  });

  it('when NODE_ENV is production, then http endpoints are refused unless they are loopback; outside production http is allowed', () => {
    const prod = { ...base, NODE_ENV: 'production' };
    expect(problemsOf({ ...prod, HUB_MICROSOFT_AUTHORITY_URL: 'http://login.example.com' })).toEqual([
      'HUB_MICROSOFT_AUTHORITY_URL: must use https with NODE_ENV=production (http is allowed for loopback addresses only)',
    ]);
    expect(problemsOf({ ...prod, HUB_MICROSOFT_SANDBOX_URL: 'http://sandbox.internal:8091' })).toHaveLength(1);
    expect(problemsOf({ ...prod, HUB_PUBLIC_URL: 'http://hub.example.com' })).toEqual([expect.stringMatching(/^HUB_MICROSOFT_REDIRECT_URI: must use https/)]);
    expect(problemsOf({ ...prod, HUB_MICROSOFT_SANDBOX_URL: 'http://127.0.0.1:8091', HUB_PUBLIC_URL: 'http://localhost:8080' })).toEqual([]);
    expect(problemsOf({ ...base, HUB_MICROSOFT_AUTHORITY_URL: 'http://login.example.com' })).toEqual([]);
  });

  it('when an endpoint has a path, query or another scheme where it must not, or the timeout is out of range, then every problem is reported at once', () => {
    expect(
      problemsOf({
        ...base,
        HUB_MICROSOFT_AUTHORITY_URL: 'https://login.microsoftonline.com/common',
        HUB_MICROSOFT_GRAPH_URL: 'https://graph.microsoft.com/v1.0?x=1',
        HUB_MICROSOFT_REDIRECT_URI: 'ftp://hub.example.com/cb',
        HUB_MICROSOFT_TIMEOUT_MS: '10',
      }),
    ).toEqual([
      expect.stringMatching(/^HUB_MICROSOFT_AUTHORITY_URL: must be an origin/),
      expect.stringMatching(/^HUB_MICROSOFT_GRAPH_URL: must have no query/),
      expect.stringMatching(/^HUB_MICROSOFT_REDIRECT_URI: must use http/),
      'HUB_MICROSOFT_TIMEOUT_MS: must be an integer between 50 and 120000',
    ]);
  });

  it('when the configuration page lists the section, then every variable has its sentence and its default', () => {
    const table = renderConfigTables([HUB_CONFIG_SCHEMA]);
    for (const name of Object.keys(HUB_CONFIG_SCHEMA.schema.shape).filter((n) => n.startsWith('HUB_MICROSOFT_'))) expect(table).toContain(`| \`${name}\` |`);
    expect(table).toContain('| `HUB_MICROSOFT_TENANT` | `organizations` |');
    expect(table).toContain('`$HUB_PUBLIC_URL/integrations/microsoft/callback`');
  });
});
