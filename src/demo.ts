import './require-node'; // first: refuses an unsupported Node before anything else loads
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { connectThroughFlow } from './demo-connect';
import { DEMO_CUSTOMER_ID, DEMO_MICROSOFT_CUSTOMER_ID, demoLines } from './demo-lines';
import { type DemoSecrets, readDemoSecrets, saveDemoSecrets, secretsFileIn } from './demo-secrets';
import { mintAdminToken } from './cli/admin-token';
import { type Config, type DemoConfig, loadConfigOrExit, loadDemoConfig, processEnv } from './config';
import { createConnectLinks } from './integrations/connect-links';
import { createSignInLinks } from './console/sign-in-links';
import { DEMO_ACCOUNTS, type RunningSandbox, SANDBOX_DEFAULT_CLIENT, type World, createSandbox, demoAccounts, loadSandboxConfig } from '@hub/google-sandbox';
import type { RunningHub } from './server';

/**
 * src/server.ts, required (not imported) once the tracing SDK is up, as main.ts does: when the OTEL_* variables
 * ask for a trace exporter the SDK must start before the server's modules load `pg` and `ioredis`, which its
 * instrumentations patch as they are required. Nothing imported above loads either.
 */
const server = () => require('./server') as typeof import('./server');
import { connectDemoMicrosoftCustomer, startDemoMicrosoftSandbox } from './demo-microsoft';

/**
 * `npm run demo`: the Hub and the Google and Microsoft sandboxes on embedded defaults, ready for curl, with two demo
 * customers connected through the Hub's connect flow: one to Google, one to Microsoft (src/demo-microsoft.ts). Every
 * variable that is set is honoured; only missing secrets are generated, printed, and saved next to the embedded
 * database (a restarted demo must still decrypt the tokens it stored). The servers are reached at DEMO_HOST
 * (src/config/demo.ts). Then it prints shell lines that work as pasted (src/demo-lines.ts).
 */

function demoEnvironment(env: Record<string, string | undefined>, demo: DemoConfig) {
  const dataDir = env.HUB_DATA_DIR?.trim() || './data';
  const secretsFile = secretsFileIn(dataDir);
  const saved = secretsFile ? readDemoSecrets(secretsFile) : {};
  const generated: DemoSecrets = {};
  const reused: string[] = [];
  const fill = (name: keyof DemoSecrets, make: () => string) => {
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
    // One setting for both servers: where they listen and the URLs a browser follows (the connect link → the
    // sandbox's consent page → back to the Hub) all come from DEMO_HOST, unless HUB_HOST/SANDBOX_HOST are set.
    SANDBOX_HOST: env.SANDBOX_HOST?.trim() || demo.listenHost,
    HUB_HOST: env.HUB_HOST?.trim() || demo.listenHost,
    HUB_GOOGLE_SANDBOX_URL: `http://${demo.host}:${sandboxPort}`,
    HUB_GOOGLE_CLIENT_ID: SANDBOX_DEFAULT_CLIENT.clientId,
    HUB_GOOGLE_CLIENT_SECRET: SANDBOX_DEFAULT_CLIENT.clientSecret,
    HUB_DATA_DIR: dataDir,
    HUB_PORT: port,
    HUB_SHUTDOWN_GRACE_MS: env.HUB_SHUTDOWN_GRACE_MS?.trim() || '0', // a local demo has no load balancer to drain
    HUB_PUBLIC_URL: env.HUB_PUBLIC_URL?.trim() || `http://${demo.host}:${port}`,
    HUB_SERVICE_SECRETS: fill('HUB_SERVICE_SECRETS', () => randomBytes(32).toString('hex')),
    HUB_ENCRYPTION_KEYS: fill('HUB_ENCRYPTION_KEYS', () => `demo1:${randomBytes(32).toString('base64')}`),
    // The admin API's key (npm run admin-token reads it back from the secrets file); not when RS256 is configured.
    ...(env.HUB_ADMIN_JWT_PUBLIC_KEY?.trim() ? {} : { HUB_ADMIN_JWT_SECRET: fill('HUB_ADMIN_JWT_SECRET', () => randomBytes(32).toString('hex')) }),
  };
  // The public URL rides along (no secret) so `npm run admin-login` signs links for the address this demo answers.
  if (secretsFile && (Object.keys(generated).length > 0 || saved.HUB_PUBLIC_URL !== merged.HUB_PUBLIC_URL)) {
    saveDemoSecrets(secretsFile, { ...generated, HUB_PUBLIC_URL: merged.HUB_PUBLIC_URL }, process.cwd());
  }
  return { merged, generated, reused, secretsFile };
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
  const running = await sandbox.listen(sandboxConfig.port, sandboxConfig.host).catch((err: unknown) => {
    throw server().explainListenError(err, 'SANDBOX_PORT');
  });
  return { running, world: () => sandbox.world };
}

/**
 * Connects the demo customer's Google Calendar and Gmail (Ana's account) through the Hub's own connect flow,
 * as a browser would: the signed connect link → the Hub → the sandbox's consent (approved as Ana, for this one
 * step) → the Hub's callback, which exchanges the code and stores the sealed tokens.
 */
async function connectDemoCustomer(hub: RunningHub, world: World, config: Config) {
  const previous = world.oauth.consent;
  world.oauth.consent = { mode: 'auto', account: DEMO_ACCOUNTS.ana };
  try {
    await connectThroughFlow(hub, {
      publicUrl: config.publicUrl,
      encryptionKeys: config.encryptionKeys,
      customerId: DEMO_CUSTOMER_ID,
      integrations: ['google_calendar', 'google_gmail'],
      whose: "the demo customer's",
    });
  } finally {
    world.oauth.consent = previous; // people opening a connect link in the demo see the consent page
  }
}

/** Ids the sandbox gave the seeded mail this run: the printed email lines use them. */
function seededMail(world: World) {
  const mailbox = world.gmail.mailboxes.get(DEMO_ACCOUNTS.ana);
  const idOf = (rfcId: string) => mailbox?.byRfcId.get(rfcId)?.[0];
  const deck = idOf('q4-deck@acme.example');
  const timeline = idOf('timeline-2@partner.example');
  const thread = timeline ? mailbox?.messages.get(timeline)?.threadId : undefined;
  if (!deck || !thread) throw new Error('the demo world lacks its seeded mail'); // a bug in demo-data.ts, not a user error
  return { deckMessageId: deck, timelineThreadId: thread };
}

async function main() {
  const env = processEnv();
  const demo = loadDemoConfigOrExit(env);
  const { merged: google, generated, reused, secretsFile } = demoEnvironment(env, demo);
  // The Microsoft sandbox first: the Hub's Microsoft settings name its port, which may be any free one. (server.ts
  // is required only on a listen error, when the process stops anyway: before the tracing SDK starts, it must not load.)
  const microsoft = await startDemoMicrosoftSandbox(google, demo, google.HUB_PUBLIC_URL, (err, variable) => server().explainListenError(err, variable));
  process.once('exit', () => void microsoft.running.close());
  const merged = { ...google, ...microsoft.env };
  const config = loadConfigOrExit(merged);
  // The OTEL_* variables are honoured as by `npm start`: the SDK first, then the server with its tracer.
  const sdk = config.observability.tracingSdk
    ? (require('./observability/otel-sdk') as typeof import('./observability/otel-sdk')).startOtelSdk('hub')
    : undefined;
  const { trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const sandbox = await startDemoSandbox(merged, config.publicUrl);
  const hub = await server().startHub(config, sdk ? { tracer: trace.getTracer('hub'), onClose: () => sdk.shutdown() } : {});
  server().stopOnSignals(hub);
  process.once('exit', () => void sandbox.running.close());
  await connectDemoCustomer(hub, sandbox.world(), config);
  await connectDemoMicrosoftCustomer(hub, microsoft.world, config.publicUrl, config.encryptionKeys);
  const notes: string[] = [];
  const fresh = Object.keys(generated).filter((k) => !reused.includes(k));
  if (fresh.length) notes.push(`Generated ${fresh.join(' and ')}${secretsFile ? ` (saved to ${resolve(secretsFile)})` : ''}.`);
  if (reused.length) notes.push(`Reused ${reused.join(' and ')} from ${resolve(secretsFile!)}.`);
  const sandboxUrl = `http://${demo.host}:${sandbox.running.port}`;
  notes.push(`Google sandbox: ${sandboxUrl} (control API ${sandboxUrl}/_sandbox/); demo customer connected as ${DEMO_ACCOUNTS.ana} through the connect flow.`);
  notes.push(microsoft.note);
  notes.push(
    `Database: ${config.database.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.database.dataDir}`}; ` +
      `Redis: ${config.redisUrl ? 'REDIS_URL' : 'not configured'}. Listening on ${config.host} (DEMO_HOST=${demo.host}).`,
  );
  const signIn = createSignInLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys }).create({ kind: 'admin' }, config.console.signInTtlS);
  notes.push(`Admin console: ${signIn.url}`);
  notes.push(`  (a one-time sign-in link, valid ${Math.round(config.console.signInTtlS / 60)} minutes; \`npm run admin-login -- --admin\` prints another)`);
  const links = createConnectLinks({
    publicUrl: config.publicUrl,
    encryptionKeys: config.encryptionKeys,
    ttlS: { admin: config.connect.linkTtlS, setup: config.connect.setupUrlTtlS },
  });
  const runId = randomBytes(4).toString('hex');
  const lines = demoLines({
    hubUrl: `http://${demo.host}:${hub.port}`,
    sandboxUrl,
    microsoftSandboxUrl: microsoft.url,
    generatedSecret: generated.HUB_SERVICE_SECRETS,
    runId,
    event: await demoEvent(hub, `demo-event-${runId}`),
    mail: seededMail(sandbox.world()),
    adminBearer: adminBearer(config, secretsFile),
    connectUrl: links.create({
      customerId: DEMO_CUSTOMER_ID,
      userId: 'demo-user',
      integration: 'google_calendar',
      returnUrl: null,
      origin: 'admin',
      replace: false,
    }).url,
    // The Microsoft customer's, as the Google one's: a person signs in on the Microsoft sandbox's page.
    microsoftConnectUrl: links.create({
      customerId: DEMO_MICROSOFT_CUSTOMER_ID,
      userId: 'demo-user',
      integration: 'outlook_calendar',
      returnUrl: null,
      origin: 'admin',
      replace: false,
    }).url,
    now: new Date(),
  });
  const banner = ['', '=== Hub demo is running ===', ...notes, '', ...lines, '', 'Ctrl-C stops the Hub.', ''].join('\n');
  setTimeout(() => process.stdout.write(banner), 150); // after the start-up log lines
}

/** The id the Hub will give the printed create's event (derived from its request_id), for the update line. */
async function demoEvent(hub: RunningHub, requestId: string) {
  const derived = await hub.eventIds.derive({ customerId: DEMO_CUSTOMER_ID, userId: null, calendarId: 'primary', requestId });
  if (!derived.ok || derived.value === null) throw new Error('the Hub could not derive the demo event id (its event-id key is unreadable)');
  return { requestId, id: derived.value };
}

/**
 * The admin line's token: `npm run admin-token` reads the saved secret back; an in-memory demo saves nothing,
 * so its line carries a token minted now (valid 12 hours — longer than such a demo lives).
 */
function adminBearer(config: Config, secretsFile: string | undefined): string {
  if (secretsFile !== undefined || config.admin.key?.algorithm !== 'HS256') return `$(npm run -s admin-token -- --customer ${DEMO_CUSTOMER_ID})`;
  const { key, issuer, audience } = config.admin;
  return mintAdminToken({ key, issuer, audience, subject: { kind: 'customer', customerId: DEMO_CUSTOMER_ID }, ttlS: 12 * 3600 });
}

function loadDemoConfigOrExit(env: Record<string, string | undefined>): DemoConfig {
  try {
    return loadDemoConfig(env);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}

main().catch((err: unknown) => server().exitOnStartFailure('demo failed to start')(err));
