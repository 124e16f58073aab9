import { ConfigError, loadConfig } from '../../src/config';
import { KEY_1, KEY_2, SECRET_A, testEnv } from '../helpers/env';

const problems = (env: Record<string, string | undefined>) => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('configuration', () => {
  it('when nothing is set, then every required variable is named in one error', () => {
    const found = problems({});
    expect(found.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['HUB_PUBLIC_URL', 'HUB_SERVICE_SECRETS', 'HUB_ENCRYPTION_KEYS']),
    );
    expect(found).toHaveLength(3);
  });

  it('when only the required variables are set, then the documented defaults apply', () => {
    const config = loadConfig({
      HUB_PUBLIC_URL: 'https://hub.example.com/',
      HUB_SERVICE_SECRETS: SECRET_A,
      HUB_ENCRYPTION_KEYS: `k1:${KEY_1}`,
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: 'https://hub.example.com',
      database: { kind: 'pglite', dataDir: './data' },
      redisUrl: undefined,
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
      trustProxy: false,
    });
  });

  it('when DATABASE_URL and REDIS_URL are set, then they select PostgreSQL and Redis', () => {
    const config = loadConfig(testEnv({ DATABASE_URL: 'postgres://u@db:5432/hub', REDIS_URL: 'redis://cache:6379' }));
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/hub', poolMax: 10 });
    expect(config.redisUrl).toBe('redis://cache:6379');
  });

  it('when secrets rotate, then several comma-separated secrets are all accepted', () => {
    expect(loadConfig(testEnv()).serviceSecrets).toHaveLength(2);
  });

  it('when a secret is shorter than 32 characters, then it is refused without echoing it', () => {
    const found = problems(testEnv({ HUB_SERVICE_SECRETS: `${SECRET_A},short-secret-value` }));
    expect(found).toEqual(['HUB_SERVICE_SECRETS: secret #2 is 18 characters; at least 32 required']);
    expect(found.join()).not.toContain('short-secret-value');
  });

  it('when keys are malformed, duplicated or the wrong size, then each problem is named without the key', () => {
    const short = Buffer.alloc(16, 1).toString('base64');
    const found = problems(testEnv({ HUB_ENCRYPTION_KEYS: `k1:${KEY_1},k1:${KEY_2},k2:${short},nocolon,bad id:${KEY_1}` }));
    expect(found).toEqual([
      'HUB_ENCRYPTION_KEYS: key "k1" is listed twice',
      'HUB_ENCRYPTION_KEYS: key "k2": must be 32 bytes in base64 (e.g. openssl rand -base64 32), got 16 bytes',
      "HUB_ENCRYPTION_KEYS: key #4: expected kid:base64key with kid of 1-32 letters, digits, '_' or '-'",
      "HUB_ENCRYPTION_KEYS: key #5: expected kid:base64key with kid of 1-32 letters, digits, '_' or '-'",
    ]);
    expect(found.join()).not.toContain(KEY_1);
  });

  it('when values have the wrong form, then each variable says what it expects', () => {
    const found = problems(
      testEnv({ HUB_PORT: '70000', HUB_PUBLIC_URL: 'not a url', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://x', LOG_LEVEL: 'loud' }),
    );
    expect(found).toEqual([
      'HUB_PORT: must be an integer between 0 and 65535',
      'HUB_PUBLIC_URL: must be a http(s) URL',
      'DATABASE_URL: must use postgres:// or postgresql://',
      'REDIS_URL: must use redis:// or rediss://',
      expect.stringMatching(/^LOG_LEVEL: Invalid option/),
    ]);
  });

  it('when the first key is listed, then it is the one that encrypts', () => {
    const config = loadConfig(testEnv({ HUB_ENCRYPTION_KEYS: `new:${KEY_2}, old:${KEY_1}` }));
    expect(config.encryptionKeys.map((k) => k.id)).toEqual(['new', 'old']);
  });
});
