import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfigOrExit, processEnv } from './config';
import { exitOnStartFailure, startHub, stopOnSignals } from './server';
import { IN_MEMORY } from './store/pglite';

/**
 * `npm run demo`: the Hub on embedded defaults, ready for curl. Every variable that is set is honoured; only
 * missing secrets are generated, printed, and saved next to the embedded database (a restarted demo must still
 * decrypt the tokens it stored). Then it prints curl lines that work as pasted.
 */

const DEMO_CUSTOMER_ID = '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00';
const DEMO_AGENT_ID = '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b';

type Generated = Partial<Record<'HUB_SERVICE_SECRETS' | 'HUB_ENCRYPTION_KEYS', string>>;

function demoEnvironment(env: Record<string, string | undefined>) {
  const dataDir = env.HUB_DATA_DIR?.trim() || './data';
  const secretsFile = dataDir === IN_MEMORY ? undefined : join(dataDir, 'demo-secrets.json');
  const saved: Generated = secretsFile && existsSync(secretsFile) ? JSON.parse(readFileSync(secretsFile, 'utf8')) : {};
  const generated: Generated = {};
  const reused: string[] = [];
  const fill = (name: keyof Generated, make: () => string) => {
    if (env[name]?.trim()) return env[name]!;
    if (saved[name]) {
      reused.push(name);
      generated[name] = saved[name];
      return saved[name]!;
    }
    generated[name] = make();
    return generated[name]!;
  };
  const port = env.HUB_PORT?.trim() || '8080';
  const merged = {
    ...env,
    HUB_DATA_DIR: dataDir,
    HUB_PORT: port,
    HUB_PUBLIC_URL: env.HUB_PUBLIC_URL?.trim() || `http://localhost:${port}`,
    HUB_SERVICE_SECRETS: fill('HUB_SERVICE_SECRETS', () => randomBytes(32).toString('hex')),
    HUB_ENCRYPTION_KEYS: fill('HUB_ENCRYPTION_KEYS', () => `demo1:${randomBytes(32).toString('base64')}`),
  };
  if (secretsFile && Object.keys(generated).length > 0) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(secretsFile, JSON.stringify(generated, null, 2), { mode: 0o600 });
    chmodSync(secretsFile, 0o600);
  }
  return { merged, generated, reused, secretsFile };
}

function banner(url: string, secret: string | undefined, notes: string[]): string {
  const auth = secret ? `ServiceSecret ${secret}` : 'ServiceSecret $HUB_SECRET';
  const execute = (body: object) =>
    `curl -s -X POST ${url}/api/internal/tools/execute/ -H 'Authorization: ${auth}' -H 'Content-Type: application/json' -d '${JSON.stringify(body)}'`;
  const call = { agent_id: DEMO_AGENT_ID, customer_id: DEMO_CUSTOMER_ID };
  return [
    '',
    '=== Hub demo is running ===',
    ...notes,
    ...(secret ? [] : ['Your HUB_SERVICE_SECRETS were given; first: export HUB_SECRET=<the first of them>']),
    '',
    '# liveness and readiness',
    `curl -s ${url}/healthz`,
    `curl -s ${url}/readyz`,
    '# the tool catalog (JSON Schemas ready for function calling)',
    `curl -s ${url}/api/internal/tools/ -H 'Authorization: ${auth}'`,
    '# run the connectivity-check tool',
    execute({ tool: 'hub_echo', ...call, inputs: { message: 'hello from the demo' }, context: { request_id: 'demo-1' } }),
    '# which Google integrations the demo customer has connected',
    `curl -s ${url}/api/internal/integrations/status/${DEMO_CUSTOMER_ID}/ -H 'Authorization: ${auth}'`,
    '# errors use the contract envelope: unknown tool, invalid inputs, wrong secret',
    execute({ tool: 'calendar_teleport', ...call, inputs: {} }),
    execute({ tool: 'hub_echo', ...call, inputs: { message: 42 } }),
    `curl -s -X POST ${url}/api/internal/tools/execute/ -H 'Authorization: ServiceSecret wrong' -H 'Content-Type: application/json' -d '{}'`,
    '# the API description',
    `curl -s ${url}/openapi.yaml`,
    '',
    'Ctrl-C stops the Hub.',
    '',
  ].join('\n');
}

async function main() {
  const env = processEnv();
  const { merged, generated, reused, secretsFile } = demoEnvironment(env);
  const config = loadConfigOrExit(merged);
  const hub = await startHub(config);
  stopOnSignals(hub);
  const notes: string[] = [];
  const fresh = Object.keys(generated).filter((k) => !reused.includes(k));
  if (fresh.length) notes.push(`Generated ${fresh.join(' and ')}${secretsFile ? ` (saved to ${resolve(secretsFile)})` : ''}.`);
  if (reused.length) notes.push(`Reused ${reused.join(' and ')} from ${resolve(secretsFile!)}.`);
  notes.push(
    `Database: ${config.database.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir}`}; ` +
      `Redis: ${config.redisUrl ? 'REDIS_URL' : 'not configured'}.`,
  );
  const secret = generated.HUB_SERVICE_SECRETS;
  const url = `http://localhost:${hub.port}`;
  setTimeout(() => process.stdout.write(banner(url, secret, notes)), 150); // after the start-up log lines
}

main().catch(exitOnStartFailure('demo failed to start'));
