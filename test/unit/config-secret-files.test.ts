import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, HUB_CONFIG_SCHEMA, isSecretVariable, loadConfig, loadMigrateConfig } from '../../src/config';
import { testEnv } from '../helpers/env';

/** Every secret variable X also reads from the file X_FILE names (Docker and Kubernetes secrets mounted as files). */

const problemsOf = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'hub-secret-files-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('secret variables read from files (X_FILE)', () => {
  it('when the schema is read, then every variable holding a secret, a key or a credential-bearing URL accepts X_FILE', () => {
    const secret = Object.keys(HUB_CONFIG_SCHEMA.schema.shape).filter(isSecretVariable).sort();
    expect(secret).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'HUB_ADMIN_JWT_PUBLIC_KEY',
        'HUB_ADMIN_JWT_SECRET',
        'HUB_ENCRYPTION_KEYS',
        'HUB_GOOGLE_CLIENT_SECRET',
        'HUB_METRICS_TOKEN',
        'HUB_SERVICE_SECRETS',
        'HUB_WEBHOOK_SECRETS',
        'REDIS_URL',
      ]),
    );
    expect(secret).not.toContain('HUB_GOOGLE_CLIENT_ID');
    expect(secret).not.toContain('HUB_PUBLIC_URL');
  });

  it('when X_FILE names a file, then its content (less the trailing newline) is the value of X', () => {
    const env = testEnv({
      HUB_SERVICE_SECRETS: undefined,
      HUB_SERVICE_SECRETS_FILE: file('service', 'from-a-file-0123456789abcdef0123456789\n'),
      DATABASE_URL_FILE: file('db', 'postgres://hub:p%40ss@db:5432/hub\r\n'),
      HUB_ADMIN_JWT_SECRET: undefined,
      HUB_ADMIN_JWT_PUBLIC_KEY_FILE: file('pem', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n'),
    });
    const config = loadConfig(env);
    expect(config.serviceSecrets).toEqual(['from-a-file-0123456789abcdef0123456789']);
    expect(config.database).toMatchObject({ kind: 'postgres', url: 'postgres://hub:p%40ss@db:5432/hub' });
    expect(config.admin.key).toMatchObject({ algorithm: 'RS256', publicKey: expect.stringContaining('-----END PUBLIC KEY-----') });
    // the migrate command reads its own settings the same way
    expect(loadMigrateConfig({ DATABASE_URL_FILE: file('db2', 'postgres://db/hub\n') }).database).toMatchObject({ url: 'postgres://db/hub' });
  });

  it('when both X and X_FILE are set, then start is refused naming both, and the other problems are still reported', () => {
    const problems = problemsOf(testEnv({ HUB_ENCRYPTION_KEYS_FILE: file('keys', `k1:${Buffer.alloc(32, 1).toString('base64')}\n`), HUB_PORT: 'x' }));
    expect(problems).toEqual([
      'HUB_ENCRYPTION_KEYS and HUB_ENCRYPTION_KEYS_FILE are both set: set one of them, not both',
      'HUB_PORT: must be an integer between 0 and 65535',
    ]);
  });

  it('when X_FILE is missing or empty, then start is refused naming the variable and the path, never a value', () => {
    const missing = join(dir, 'nope');
    expect(problemsOf(testEnv({ HUB_SERVICE_SECRETS: undefined, HUB_SERVICE_SECRETS_FILE: missing }))).toEqual([
      `HUB_SERVICE_SECRETS_FILE: cannot read ${missing} (ENOENT)`,
    ]);
    const empty = file('empty', '\n');
    expect(problemsOf(testEnv({ REDIS_URL_FILE: empty }))).toEqual([`REDIS_URL_FILE: ${empty} is empty`]);
  });

  it('when the file holds an invalid value, then the variable is named as if it were set directly, without the value', () => {
    const problems = problemsOf(testEnv({ HUB_SERVICE_SECRETS: undefined, HUB_SERVICE_SECRETS_FILE: file('short', 'too-short-a-secret\n') }));
    expect(problems).toEqual(['HUB_SERVICE_SECRETS: secret #1 is 18 characters; at least 32 required']);
    expect(problems.join()).not.toContain('too-short-a-secret');
  });

  it('when a non-secret variable has a _FILE twin, then it is not read (only secrets come from files)', () => {
    expect(loadConfig(testEnv({ HUB_PUBLIC_URL_FILE: join(dir, 'nope') })).publicUrl).toBe(loadConfig(testEnv()).publicUrl);
  });
});
