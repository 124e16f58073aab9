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
  it('when HUB_PROCESSES is above 1 without PostgreSQL and Redis, then it is refused naming both; with them, each process counts as a replica', () => {
    const found = problems(testEnv({ HUB_PROCESSES: '2' }));
    expect(found).toEqual([
      expect.stringMatching(/^HUB_PROCESSES: .*DATABASE_URL \(PostgreSQL\); embedded PGlite runs in one process only/),
      expect.stringMatching(/^HUB_PROCESSES: .*REDIS_URL/),
    ]);
    const config = loadConfig(
      testEnv({ HUB_PROCESSES: '4', HUB_REPLICAS: '3', DATABASE_URL: 'postgres://db.example/hub', REDIS_URL: 'redis://redis.example' }),
    );
    expect(config.processes).toBe(4);
    expect(config.rateLimit.replicas).toBe(12);
    expect(loadConfig(testEnv()).processes).toBe(1);
  });

  it('when nothing is set, then every required variable is named in one error', () => {
    const found = problems({});
    expect(found.map((p) => p.split(':')[0])).toEqual(expect.arrayContaining(['HUB_PUBLIC_URL', 'HUB_SERVICE_SECRETS', 'HUB_ENCRYPTION_KEYS']));
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
      shutdownTimeoutMs: 27_000, // HUB_TOOL_DEADLINE_MS + 2 s
      shutdownGraceMs: 5_000,
      trustProxy: false,
    });
  });

  it('when the shutdown timeout is below the tool deadline, then it is refused; unset, it follows the deadline', () => {
    expect(problems(testEnv({ HUB_SHUTDOWN_TIMEOUT_MS: '10000' }))).toEqual([
      'HUB_SHUTDOWN_TIMEOUT_MS: 10000 is below HUB_TOOL_DEADLINE_MS (25000); a call in flight at shutdown could be cut off — use at least 25000 (unset: deadline + 2000)',
    ]);
    expect(loadConfig(testEnv({ HUB_TOOL_DEADLINE_MS: '5000' })).shutdownTimeoutMs).toBe(7_000);
    expect(loadConfig(testEnv({ HUB_TOOL_DEADLINE_MS: '5000', HUB_SHUTDOWN_TIMEOUT_MS: '5000' })).shutdownTimeoutMs).toBe(5_000);
  });

  it('when DATABASE_URL and REDIS_URL are set, then they select PostgreSQL and Redis', () => {
    const config = loadConfig(testEnv({ DATABASE_URL: 'postgres://u@db:5432/hub', REDIS_URL: 'redis://cache:6379' }));
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/hub', poolMax: 10, queryTimeoutMs: 2_000 });
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
    const found = problems(testEnv({ HUB_PORT: '70000', HUB_PUBLIC_URL: 'not a url', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://x', LOG_LEVEL: 'loud' }));
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

describe('Google endpoints', () => {
  it('when HUB_GOOGLE_HTTP names a transport, then it is used; anything else is refused', () => {
    expect(loadConfig(testEnv({ HUB_GOOGLE_HTTP: 'node-fetch' })).google.http).toBe('node-fetch');
    expect(() => loadConfig(testEnv({ HUB_GOOGLE_HTTP: 'curl' }))).toThrow(/HUB_GOOGLE_HTTP/);
  });

  it("when nothing is set, then every endpoint is Google's own", () => {
    expect(loadConfig(testEnv()).google).toEqual({
      clientId: undefined,
      clientSecret: undefined,
      sandbox: false,
      publishingStatus: 'production',
      http: 'lean',
      endpoints: {
        calendarRootUrl: 'https://www.googleapis.com/',
        gmailRootUrl: 'https://gmail.googleapis.com/',
        authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: 'https://oauth2.googleapis.com/token',
        revokeUrl: 'https://oauth2.googleapis.com/revoke',
        tokenInfoUrl: 'https://oauth2.googleapis.com/tokeninfo',
        pemCertsUrl: 'https://www.googleapis.com/oauth2/v1/certs',
        jwkCertsUrl: 'https://www.googleapis.com/oauth2/v3/certs',
      },
    });
  });

  it('when the sandbox URL is set, then every endpoint moves to it; an explicit endpoint still wins', () => {
    const { google } = loadConfig(testEnv({ HUB_GOOGLE_SANDBOX_URL: 'http://127.0.0.1:8090', HUB_GOOGLE_TOKEN_URL: 'https://tokens.example/t' }));
    expect(google.sandbox).toBe(true);
    expect(google.endpoints).toMatchObject({
      calendarRootUrl: 'http://127.0.0.1:8090/',
      gmailRootUrl: 'http://127.0.0.1:8090/',
      authUrl: 'http://127.0.0.1:8090/o/oauth2/v2/auth',
      tokenUrl: 'https://tokens.example/t',
      revokeUrl: 'http://127.0.0.1:8090/revoke',
    });
  });

  it('when an API root has a path, then it is refused (googleapis appends the whole path itself)', () => {
    expect(problems(testEnv({ HUB_GOOGLE_API_ROOT_URL: 'http://127.0.0.1:8090/calendar/v3' }))).toEqual([
      expect.stringMatching(/^HUB_GOOGLE_API_ROOT_URL: must be an origin/),
    ]);
  });

  it('when the client secret is set, then the logger is told to scrub it', () => {
    const { secretLiterals } = jest.requireActual('../../src/server');
    expect(secretLiterals(loadConfig(testEnv({ HUB_GOOGLE_CLIENT_SECRET: 'GOCSPX-abcdefghijklmnop' })))).toContain('GOCSPX-abcdefghijklmnop');
  });
});

describe('HUB_GOOGLE_PUBLISHING_STATUS', () => {
  it('when set to testing, then the Hub knows its grants end 7 days after consent; anything but production|testing is refused', () => {
    expect(loadConfig(testEnv({ HUB_GOOGLE_PUBLISHING_STATUS: 'testing' })).google.publishingStatus).toBe('testing');
    expect(() => loadConfig(testEnv({ HUB_GOOGLE_PUBLISHING_STATUS: 'beta' }))).toThrow(/HUB_GOOGLE_PUBLISHING_STATUS/);
  });
});
