import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DateTime } from 'luxon';
import { type Config, SANDBOX_DEFAULT_CLIENT, loadConfigOrExit, loadSandboxConfig, processEnv } from './config';
import { createConnectLinks } from './integrations/connect-links';
import { type RunningSandbox, createSandbox } from './sandbox/app';
import { DEMO_ACCOUNTS, dateOnly, demoAccounts, mondayOf } from './sandbox/demo-data';
import type { World } from './sandbox/world';
import { type RunningHub, exitOnStartFailure, startHub, stopOnSignals } from './server';
import { IN_MEMORY } from './store/pglite';

/**
 * `npm run demo`: the Hub on embedded defaults, ready for curl. Every variable that is set is honoured; only
 * missing secrets are generated, printed, and saved next to the embedded database (a restarted demo must still
 * decrypt the tokens it stored). Then it prints curl lines that work as pasted.
 */

const DEMO_CUSTOMER_ID = '5f0c2f4e-8d3b-4c1e-9a57-3b9d2e6a1c00';
const DEMO_AGENT_ID = '6f1c2b1e-0a4e-4f57-9a0b-1c2d3e4f5a6b';

type Generated = Partial<Record<'HUB_SERVICE_SECRETS' | 'HUB_ENCRYPTION_KEYS' | 'HUB_ADMIN_JWT_SECRET', string>>;

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
  const sandboxPort = env.SANDBOX_PORT?.trim() || '8090';
  const merged = {
    ...env,
    SANDBOX_PORT: sandboxPort,
    HUB_GOOGLE_SANDBOX_URL: `http://localhost:${sandboxPort}`,
    HUB_GOOGLE_CLIENT_ID: SANDBOX_DEFAULT_CLIENT.clientId,
    HUB_GOOGLE_CLIENT_SECRET: SANDBOX_DEFAULT_CLIENT.clientSecret,
    HUB_DATA_DIR: dataDir,
    HUB_PORT: port,
    HUB_SHUTDOWN_GRACE_MS: env.HUB_SHUTDOWN_GRACE_MS?.trim() || '0', // a local demo has no load balancer to drain
    HUB_PUBLIC_URL: env.HUB_PUBLIC_URL?.trim() || `http://localhost:${port}`,
    HUB_SERVICE_SECRETS: fill('HUB_SERVICE_SECRETS', () => randomBytes(32).toString('hex')),
    HUB_ENCRYPTION_KEYS: fill('HUB_ENCRYPTION_KEYS', () => `demo1:${randomBytes(32).toString('base64')}`),
    // The admin API's key (npm run admin-token reads it back from the secrets file); not when RS256 is configured.
    ...(env.HUB_ADMIN_JWT_PUBLIC_KEY?.trim() ? {} : { HUB_ADMIN_JWT_SECRET: fill('HUB_ADMIN_JWT_SECRET', () => randomBytes(32).toString('hex')) }),
  };
  if (secretsFile && Object.keys(generated).length > 0) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(secretsFile, JSON.stringify(generated, null, 2), { mode: 0o600 });
    chmodSync(secretsFile, 0o600);
  }
  return { merged, generated, reused, secretsFile };
}

/** The calendar and email tools on the demo world: Ana's week (Ben shares his free/busy, Carla does not) and inbox. */
function toolExamples(execute: (body: object) => string, call: { agent_id: string; customer_id: string }): string[] {
  const monday = mondayOf(new Date());
  const day = (n: number) => dateOnly(monday, n);
  const { ben, carla } = DEMO_ACCOUNTS;
  const madrid = (n: number, hhmm: string) => DateTime.fromISO(`${day(n)}T${hhmm}`, { zone: 'Europe/Madrid' }).toISO({ suppressMilliseconds: true });
  return [
    "# Ana's calendar: busy times of her working week, then the best hour with Ben and Carla (Carla's calendar is not shared: 'unknown')",
    execute({ tool: 'calendar_get_availability', ...call, inputs: { start_date: day(0), end_date: day(4), timezone: 'Europe/Madrid', calendars: ['primary', ben] } }),
    execute({ tool: 'calendar_find_optimal_times', ...call, inputs: { duration_minutes: 60, attendees: [ben, carla], date_range: { start: day(0), end: day(4) }, preferences: { preferred_hours: { start: '10:00', end: '16:00' }, avoid_mondays: true } } }),
    '# book it (a retry with the same request_id never makes a second event)',
    execute({ tool: 'calendar_create_event', ...call, inputs: { title: 'Launch review', start: madrid(3, '10:00'), end: madrid(3, '11:00'), description: 'Q1 launch', location: 'Google Meet', attendees: [ben], send_notifications: true }, context: { request_id: 'demo-event-1' } }),
    "# Ana's mail: search, then read one (use a message_id from the search), send (and reply with reply_to_message_id)",
    execute({ tool: 'email_search', ...call, inputs: { query: `from:${ben}`, max_results: 10, include_body: false } }),
    execute({ tool: 'email_send', ...call, inputs: { to: [ben], subject: 'Q4 planning deck', body: 'Thanks Ben, I will review it before Thursday.', body_type: 'text' }, context: { request_id: 'demo-mail-1' } }),
  ];
}

function banner(url: string, secret: string | undefined, notes: string[], sandboxUrl: string, connectUrl: string): string {
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
    ...toolExamples(execute, call),
    '# which Google integrations the demo customer has connected',
    `curl -s ${url}/api/internal/integrations/status/${DEMO_CUSTOMER_ID}/ -H 'Authorization: ${auth}'`,
    '# the admin API (Bearer JWT minted by npm run admin-token): every connection of the demo customer',
    `curl -s ${url}/api/admin/customers/${DEMO_CUSTOMER_ID}/integrations -H "Authorization: Bearer $(npm run -s admin-token -- --customer ${DEMO_CUSTOMER_ID})"`,
    '# open in a browser: connect an end user\'s calendar (the sandbox shows Google\'s consent page; pick anyone)',
    connectUrl,
    '# errors use the contract envelope: unknown tool, invalid inputs, wrong secret',
    execute({ tool: 'calendar_teleport', ...call, inputs: {} }),
    execute({ tool: 'hub_echo', ...call, inputs: { message: 42 } }),
    `curl -s -X POST ${url}/api/internal/tools/execute/ -H 'Authorization: ServiceSecret wrong' -H 'Content-Type: application/json' -d '{}'`,
    '# the Google sandbox behind the demo: its accounts, and the log of calls the Hub made to "Google"',
    `curl -s ${sandboxUrl}/_sandbox/accounts`,
    `curl -s ${sandboxUrl}/_sandbox/requests`,
    '# the API description',
    `curl -s ${url}/openapi.yaml`,
    '',
    'Ctrl-C stops the Hub.',
    '',
  ].join('\n');
}

/** The Google sandbox in this process, in sandbox mode, with the demo world and the Hub registered as a client. */
async function startDemoSandbox(env: Record<string, string | undefined>, hubPublicUrl: string): Promise<{ running: RunningSandbox; world: () => World }> {
  const sandboxConfig = loadSandboxConfig(env);
  const sandbox = createSandbox({
    ...(sandboxConfig.seed !== undefined ? { seed: sandboxConfig.seed } : {}),
    control: true,
    clients: [{ ...SANDBOX_DEFAULT_CLIENT, redirectUris: [`${hubPublicUrl}/integrations/google/callback`], name: 'Hub (demo)' }],
    accounts: demoAccounts(new Date()),
  });
  const running = await sandbox.listen(sandboxConfig.port, '127.0.0.1');
  return { running, world: () => sandbox.world };
}

/**
 * Connects the demo customer's Google Calendar and Gmail (Ana's account) through the Hub's own connect flow,
 * as a browser would: the signed connect link → the Hub → the sandbox's consent (approved as Ana, for this one
 * step) → the Hub's callback, which exchanges the code and stores the sealed tokens.
 */
async function connectDemoCustomer(hub: RunningHub, world: World, config: Config) {
  const links = createConnectLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys, ttlS: { admin: 300, setup: 300 } });
  const previous = world.oauth.consent;
  world.oauth.consent = { mode: 'auto', account: DEMO_ACCOUNTS.ana };
  try {
    for (const integration of ['google_calendar', 'google_gmail'] as const) {
      const link = links.create({ customerId: DEMO_CUSTOMER_ID, userId: null, integration, returnUrl: null, origin: 'admin', replace: false });
      // The link is on the public URL; the request goes to this process (they differ behind a proxy).
      const atHub = (url: string) => new URL(new URL(url).pathname + new URL(url).search, hub.url).toString();
      const start = await fetch(atHub(link.url), { redirect: 'manual' });
      const cookie = start.headers.get('set-cookie')?.split(';')[0];
      const consent = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
      const callback = await fetch(atHub(consent.headers.get('location') ?? ''), { redirect: 'manual', headers: cookie ? { cookie } : {} });
      if (callback.status !== 200) throw new Error(`connecting the demo customer's ${integration} failed: ${callback.status}`);
    }
  } finally {
    world.oauth.consent = previous; // people opening a connect link in the demo see the consent page
  }
}

async function main() {
  const env = processEnv();
  const { merged, generated, reused, secretsFile } = demoEnvironment(env);
  const config = loadConfigOrExit(merged);
  const sandbox = await startDemoSandbox(merged, config.publicUrl);
  const hub = await startHub(config);
  stopOnSignals(hub);
  process.once('exit', () => void sandbox.running.close());
  await connectDemoCustomer(hub, sandbox.world(), config);
  const notes: string[] = [];
  const fresh = Object.keys(generated).filter((k) => !reused.includes(k));
  if (fresh.length) notes.push(`Generated ${fresh.join(' and ')}${secretsFile ? ` (saved to ${resolve(secretsFile)})` : ''}.`);
  if (reused.length) notes.push(`Reused ${reused.join(' and ')} from ${resolve(secretsFile!)}.`);
  notes.push(
    `Google sandbox: ${sandbox.running.url} (control API ${sandbox.running.url}/_sandbox/); demo customer connected as ${DEMO_ACCOUNTS.ana} through the connect flow.`,
  );
  notes.push(
    `Database: ${config.database.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir}`}; ` +
      `Redis: ${config.redisUrl ? 'REDIS_URL' : 'not configured'}.`,
  );
  const secret = generated.HUB_SERVICE_SECRETS;
  const url = `http://localhost:${hub.port}`;
  const links = createConnectLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys, ttlS: { admin: config.connect.linkTtlS, setup: config.connect.setupUrlTtlS } });
  const connectUrl = links.create({ customerId: DEMO_CUSTOMER_ID, userId: 'demo-user', integration: 'google_calendar', returnUrl: null, origin: 'admin', replace: false }).url;
  setTimeout(() => process.stdout.write(banner(url, secret, notes, sandbox.running.url, connectUrl)), 150); // after the start-up log lines
}

main().catch(exitOnStartFailure('demo failed to start'));
