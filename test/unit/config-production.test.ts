import { ConfigError, loadConfig, loadDemoConfig, loadMigrateConfig } from '../../src/config';
import { testEnv } from '../helpers/env';

const problemsOf = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

const google = { HUB_GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com', HUB_GOOGLE_CLIENT_SECRET: 'GOCSPX-x' };
/** Production refuses /metrics on the API port without a token: these cases serve it on a port of its own. */
const metricsApart = { HUB_METRICS_PORT: '9464' };

describe('configuration in production (NODE_ENV=production)', () => {
  it('when the database is embedded PGlite, then start is refused with what to set', () => {
    const problems = problemsOf(testEnv({ NODE_ENV: 'production', HUB_DATA_DIR: '/app/data', ...google, ...metricsApart }));
    expect(problems).toEqual([expect.stringMatching(/^DATABASE_URL: required with NODE_ENV=production .*HUB_ALLOW_EMBEDDED_DB=true/)]);
  });

  it('when HUB_ALLOW_EMBEDDED_DB=true, then PGlite is accepted', () => {
    expect(loadConfig(testEnv({ NODE_ENV: 'production', HUB_ALLOW_EMBEDDED_DB: 'true', ...google, ...metricsApart })).database.kind).toBe('pglite');
  });

  it('when the Google OAuth client is missing, then both variables are named in the same error', () => {
    const problems = problemsOf(testEnv({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/hub', ...metricsApart }));
    expect(problems.map((p) => p.split(':')[0])).toEqual(['HUB_GOOGLE_CLIENT_ID', 'HUB_GOOGLE_CLIENT_SECRET']);
  });

  it('when everything production needs is set, then it loads; outside production nothing of this is required', () => {
    expect(loadConfig(testEnv({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/hub', ...google, ...metricsApart })).database.kind).toBe('postgres');
    expect(problemsOf(testEnv({ NODE_ENV: 'development' }))).toEqual([]);
  });

  it('when /metrics would be served on the API port without a token, then start is refused with the three ways out', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/hub', ...google };
    expect(problemsOf(testEnv(production))).toEqual([
      expect.stringMatching(/^HUB_METRICS_TOKEN: required with NODE_ENV=production .*HUB_METRICS_TOKEN_FILE.*HUB_METRICS_PORT.*HUB_METRICS=off$/),
    ]);
    expect(loadConfig(testEnv({ ...production, HUB_METRICS_TOKEN: 'a-metrics-token-of-some-length' })).observability.metricsToken).toBeDefined();
    expect(loadConfig(testEnv({ ...production, HUB_METRICS_PORT: '9464' })).observability.metricsPort).toBe(9464);
    expect(loadConfig(testEnv({ ...production, HUB_METRICS: 'off' })).observability.metrics).toBe(false);
    expect(problemsOf(testEnv({ HUB_METRICS_PORT: undefined }))).toEqual([]); // outside production: open, as before
  });

  it('when HUB_MIGRATE_ON_START is given, then it switches migrations at start; anything but on/off is refused', () => {
    expect(loadConfig(testEnv()).migrateOnStart).toBe(true);
    expect(loadConfig(testEnv({ HUB_MIGRATE_ON_START: 'false' })).migrateOnStart).toBe(false);
    expect(problemsOf(testEnv({ HUB_MIGRATE_ON_START: 'later' }))).toEqual(['HUB_MIGRATE_ON_START: must be on or off (true/false)']);
  });
});

describe('the migrate command and the demo read only their own settings', () => {
  it('when only DATABASE_URL is set, then migrate has what it needs (no secret is required to migrate)', () => {
    expect(loadMigrateConfig({ DATABASE_URL: 'postgres://db/hub' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://db/hub',
      poolMax: 10,
      queryTimeoutMs: 2_000,
    });
    expect(loadMigrateConfig({}).database).toEqual({ kind: 'pglite', dataDir: './data', thread: true });
    expect(() => loadMigrateConfig({ DATABASE_URL: 'mysql://x' })).toThrow(ConfigError);
  });

  it.each([
    ['localhost', 'localhost', '127.0.0.1'],
    ['127.0.0.1', '127.0.0.1', '127.0.0.1'],
    ['devbox.lan', 'devbox.lan', '0.0.0.0'],
    ['192.168.1.20', '192.168.1.20', '0.0.0.0'],
  ])('when DEMO_HOST=%s, then links use %s and both servers listen on %s', (value, host, listenHost) => {
    expect(loadDemoConfig({ DEMO_HOST: value })).toEqual({ host, listenHost });
  });

  it('when DEMO_HOST is not a host name, then it is refused', () => {
    expect(() => loadDemoConfig({ DEMO_HOST: 'http://devbox:8080' })).toThrow('DEMO_HOST: must be a host name or IPv4 address');
    expect(loadDemoConfig({})).toEqual({ host: 'localhost', listenHost: '127.0.0.1' });
  });
});
