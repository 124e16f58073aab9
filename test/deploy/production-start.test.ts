import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY_1, SECRET_A, testEnv } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';

/**
 * The compiled Hub (`npm run build`) started as a production deployment starts it: NODE_ENV=production, its
 * secrets in files (X_FILE), /metrics either behind its token or on a port of its own.
 */

// Each case starts a whole Hub process (PGlite's WASM included): slow on a loaded machine, so a generous timeout.
jest.setTimeout(120_000);

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'hub-production-start-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, `${content}\n`);
  return path;
};

/** Production with every secret in a file, on embedded PGlite in memory (allowed explicitly). */
const production = () => ({
  ...testEnv({ HUB_SERVICE_SECRETS: undefined, HUB_ENCRYPTION_KEYS: undefined, HUB_ADMIN_JWT_SECRET: undefined }),
  NODE_ENV: 'production',
  HUB_ALLOW_EMBEDDED_DB: 'true',
  HUB_SERVICE_SECRETS_FILE: file('service-secrets', SECRET_A),
  HUB_ENCRYPTION_KEYS_FILE: file('encryption-keys', `k1:${KEY_1}`),
  HUB_GOOGLE_CLIENT_ID: 'hub.apps.googleusercontent.com',
  HUB_GOOGLE_CLIENT_SECRET_FILE: file('google-client-secret', 'GOCSPX-from-a-file'),
});

interface Started {
  api: string;
  metrics?: string;
  stop(): Promise<void>;
}

/** Runs dist/src/main.js until its "hub listening" line, or until it exits (then rejects with its stderr). */
function start(env: Record<string, string | undefined>): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], {
      env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.includes('"hub listening"'));
      if (!line) return;
      const { port, metrics_port } = JSON.parse(line) as { port: number; metrics_port?: number };
      resolve({
        api: `http://127.0.0.1:${port}`,
        ...(metrics_port !== undefined ? { metrics: `http://127.0.0.1:${metrics_port}` } : {}),
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`exit ${code}: ${err}`)));
  });
}

const execute = (api: string, secret: string) =>
  fetch(`${api}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { Authorization: `ServiceSecret ${secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(anExecuteBody()),
  });

describe('a production start', () => {
  it('when the secrets come from files and /metrics has its token, then agents call with the file secret and /metrics is refused without the token', async () => {
    const hub = await start({ ...production(), HUB_METRICS_TOKEN_FILE: file('metrics-token', METRICS_TOKEN) });
    try {
      expect((await execute(hub.api, SECRET_A)).status).toBe(200);
      expect((await execute(hub.api, 'not-the-secret-0123456789abcdef0123456789')).status).toBe(401);

      const anonymous = await fetch(`${hub.api}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
      expect((await fetch(`${hub.api}/metrics`, { headers: { Authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
      const scraped = await fetch(`${hub.api}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('hub_tool_calls_total{tool="hub_echo",outcome="ok"} 1');
    } finally {
      await hub.stop();
    }
  });

  it('when HUB_METRICS_PORT is set, then /metrics is served there only, and the API port does not have it', async () => {
    const hub = await start({ ...production(), HUB_METRICS_PORT: '0' });
    try {
      expect((await fetch(`${hub.api}/metrics`)).status).toBe(404);
      const scraped = await fetch(`${hub.metrics}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# TYPE hub_tool_calls_total counter');
    } finally {
      await hub.stop();
    }
  });

  it('when /metrics would be public (API port, no token), then the process refuses to start and says what to set', async () => {
    await expect(start(production())).rejects.toThrow(
      /exit 1: .*HUB_METRICS_TOKEN: required with NODE_ENV=production while \/metrics is served on the API port/s,
    );
  });

  it('when a secret is set both directly and as a file, then the process refuses to start naming both', async () => {
    await expect(start({ ...production(), HUB_METRICS_PORT: '0', HUB_SERVICE_SECRETS: SECRET_A })).rejects.toThrow(
      /exit 1: .*HUB_SERVICE_SECRETS and HUB_SERVICE_SECRETS_FILE are both set: set one of them, not both/s,
    );
  });
});
