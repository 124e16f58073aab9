import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/** Reading deploy/ as Docker Compose and kubectl would: YAML with merge keys, Compose's `${VAR…}` interpolation. */

export const ROOT = join(__dirname, '..', '..');
export const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The command the compose file's `migrate` service and the Kubernetes Job both run (and the Dockerfile names). */
export const MIGRATE_COMMAND = ['node', 'dist/src/cli/migrate.js'];

/**
 * Compose interpolation (compose-spec "Interpolation"): `$VAR`, `${VAR}`, `${VAR:-default}` / `${VAR-default}`,
 * `${VAR:?error}` / `${VAR?error}` (a missing variable fails), `$$` for a literal `$`.
 */
export function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_]\w*)/g, (whole, braced, colon, op, arg, bare) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare) as string;
      const set = env[name] !== undefined && (colon !== ':' || env[name] !== '');
      if (set) return env[name]!;
      if (op === '-') return arg as string;
      if (op === '?') throw new Error(`compose: ${name}: ${arg}`);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}

export function loadCompose(env: Record<string, string>): any {
  return interpolate(parse(read('deploy/compose.yaml'), { merge: true }), env);
}

/** KEY=VALUE lines of a Compose env file (`#` comments, blank lines). */
export function readEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of read(path).split('\n')) {
    const m = /^\s*([A-Za-z_]\w*)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

export function kubernetesDocuments(file: string): any[] {
  return parseAllDocuments(read(join('deploy/kubernetes', file))).map((d) => d.toJS());
}

/** The overlays a cluster is deployed from (deploy/kubernetes/overlays/<name>). */
export const OVERLAYS = ['production', 'staging'] as const;

/** What `kubectl apply -k <dir>` would send: the objects `kubectl kustomize` renders (a relative dir is from the root). */
export function renderKustomization(dir: string): any[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new Error('kubectl not found: test/deploy renders the overlays with `kubectl kustomize` (kubectl 1.27 or newer)', { cause: err });
    throw new Error(`kubectl kustomize ${dir}: ${e.stderr ?? e.message}`, { cause: err });
  }
  return parseAllDocuments(out).map((d) => d.toJS());
}

/** Paths the Hub serves, from openapi.yaml: probes and health checks must point at one of them. */
export function servedPaths(): string[] {
  return Object.keys(parse(read('openapi.yaml')).paths);
}

/** Values that pass the Hub's validation for the secrets an example leaves as placeholders. */
export const SAMPLE_SECRETS: Record<string, string> = {
  POSTGRES_PASSWORD: 'sample-password',
  HUB_SERVICE_SECRETS: 'sample-service-secret-0123456789abcdef0123456789',
  HUB_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  HUB_ADMIN_JWT_SECRET: 'sample-admin-secret-0123456789abcdef0123456789',
};
