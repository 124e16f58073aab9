import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../src/config';
import { googleScope } from '../src/integrations/catalog';
import { createLogger } from '../src/logger';
import { createCredentialStore } from '../src/store/credential-store';
import { migrate } from '../src/store/migrate';
import { openDatabase } from '../src/store/open';
import { createTokenCipher } from '../src/store/token-cipher';

/**
 * The built Google sandbox (@hub/google-sandbox) and the compiled Hub (dist/) as processes of their own, the Hub on an embedded
 * database seeded with one customer's Gmail connection — so what is measured is the Hub process alone, its
 * HTML worker loaded as the production image loads it. For bench/fuzz.ts and the hostile-HTML latency test.
 */

// From source (jest) this is bench/, compiled it is dist/bench/: either way the processes run from dist/.
export const DIST = __dirname.endsWith(join('dist', 'bench')) ? join(__dirname, '..') : join(__dirname, '..', 'dist');
/** The built sandbox's command (the workspace package @hub/google-sandbox), as a script path under DIST. */
export const SANDBOX_MAIN = relative(DIST, require.resolve('@hub/google-sandbox/main'));
const CLIENT = { clientId: 'spawned.apps.googleusercontent.com', clientSecret: 'GOCSPX-spawned-secret' };
const GMAIL_SCOPES = [googleScope('gmail.send'), googleScope('gmail.readonly'), googleScope('gmail.modify')];

export interface Spawned {
  hubUrl: string;
  hubPid: number;
  secret: string;
  customerId: string;
  /** The seeded messages: Gmail id and subject. */
  messages: { id: string; subject: string }[];
  /** CPU time (user + system, every thread) the Hub process has used so far, in ms (Linux /proc). */
  hubCpuMs(): number;
  stop(): Promise<void>;
}

/** Starts `node script` and resolves with the first stdout line `pick` accepts. */
export function startProcess(
  script: string,
  env: Record<string, string | undefined>,
  pick: (line: string) => string | undefined,
  dist = DIST,
): Promise<{ child: ChildProcess; found: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dist, script)], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const found = pick(line);
      if (found) resolve({ child, found });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export const stopProcess = (child: ChildProcess) =>
  child.exitCode === null && child.signalCode === null ? new Promise<void>((done) => child.once('exit', () => done()).kill('SIGTERM')) : Promise.resolve();

/** utime + stime of a process, from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The threads the Hub names (the OS thread name Node gives a named Worker), and the rest as `other`. */
export type HubThread = 'request' | 'pglite' | 'receipts' | 'other';
const THREAD_OF: Record<string, HubThread> = { MainThread: 'request', 'hub-pglite': 'pglite', 'hub-receipts': 'receipts' };

/**
 * A process's CPU time (ms) split by thread, from /proc/<pid>/task/<tid>/stat and comm: the request thread (the
 * event loop), embedded PGlite's thread, the audit receipt thread, and every other (GC helpers, libuv's pool, the
 * HTML workers). Threads that ended meanwhile are missing from the split (their time stays in cpuMsOf).
 */
export function threadCpuMsOf(pid: number): Record<HubThread, number> {
  const out: Record<HubThread, number> = { request: 0, pglite: 0, receipts: 0, other: 0 };
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // the process is gone
  }
  for (const tid of tids) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[THREAD_OF[comm] ?? 'other'] += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * The whole machine's CPU clock from /proc/stat (every core, every process: this client, the sandbox, the Hubs,
 * PostgreSQL, Redis): busy and total milliseconds. Whether a run left a core free is what bounds what a second
 * Hub process could add.
 */
export function machineCpuMs(): { busy: number; total: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy: busy * 10, total: (busy + idle! + iowait!) * 10 };
}

export async function startSpawned(options: { email: string; messages: unknown[]; hubEnv?: Record<string, string> }): Promise<Spawned> {
  const sb = await startProcess(
    SANDBOX_MAIN,
    {
      SANDBOX_PORT: '0',
      SANDBOX_CONTROL: 'on',
      SANDBOX_DEMO_DATA: 'off',
      SANDBOX_SEED: '7',
      SANDBOX_CLIENT_ID: CLIENT.clientId,
      SANDBOX_CLIENT_SECRET: CLIENT.clientSecret,
    },
    (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-spawned-'));
  let hub: ChildProcess | undefined;
  const stop = async () => {
    if (hub) await stopProcess(hub);
    await stopProcess(sb.child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const sandboxUrl = sb.found;
    const control = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${sandboxUrl}/_sandbox${path}`, {
        method,
        ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
      });
      if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    await control('POST', '/accounts', { email: options.email, messages: options.messages });
    const grant = await control('POST', '/tokens', { email: options.email, scopes: GMAIL_SCOPES, client_id: CLIENT.clientId, offline: true });

    const secret = randomBytes(32).toString('hex');
    const env: Record<string, string> = {
      HUB_PORT: '0',
      HUB_HOST: '127.0.0.1',
      HUB_PUBLIC_URL: 'http://127.0.0.1',
      HUB_SERVICE_SECRETS: secret,
      HUB_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      HUB_DATA_DIR: dataDir,
      HUB_GOOGLE_SANDBOX_URL: sandboxUrl,
      HUB_GOOGLE_CLIENT_ID: CLIENT.clientId,
      HUB_GOOGLE_CLIENT_SECRET: CLIENT.clientSecret,
      HUB_RATE_LIMIT_CUSTOMER_POINTS: '10000000',
      HUB_RATE_LIMIT_AGENT_POINTS: '10000000',
      HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: '100000', // benches and the fuzz run name a fresh agent per request
      LOG_LEVEL: 'warn',
      ...options.hubEnv,
    };
    // The embedded database is one process's: seed it, close it, then let the Hub process open it.
    const config = loadConfig(env);
    const logger = createLogger({ level: 'silent' });
    const db = await openDatabase(config.database, logger);
    await migrate(db, logger);
    const customerId = randomUUID();
    const now = Date.now();
    await createCredentialStore(db, createTokenCipher(config.encryptionKeys)).save({
      customerId,
      userId: null,
      integration: 'google_gmail',
      accountEmail: options.email,
      scopes: GMAIL_SCOPES,
      accessToken: grant.access_token as string,
      refreshToken: grant.refresh_token as string,
      tokenExpiresAt: new Date(now + 3_600_000),
      lastRefreshedAt: new Date(now),
    });
    await db.close();

    const started = await startProcess('src/main.js', { ...env, LOG_LEVEL: 'info' }, (line) => {
      if (!line.includes('"hub listening"')) return undefined;
      return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
    });
    hub = started.child;
    const hubPid = hub.pid!;
    const messages = await seededMessages(started.found, secret, customerId, options.messages.length);
    return { hubUrl: started.found, hubPid, secret, customerId, messages, hubCpuMs: () => cpuMsOf(hubPid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The seeded messages' ids and subjects, through the Hub itself. */
async function seededMessages(hubUrl: string, secret: string, customerId: string, count: number): Promise<{ id: string; subject: string }[]> {
  const res = await fetch(`${hubUrl}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: `ServiceSecret ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool: 'email_search', agent_id: randomUUID(), customer_id: customerId, inputs: { query: '', max_results: Math.min(100, count) } }),
  });
  const body = (await res.json()) as { result?: { messages: { message_id: string; subject: string }[] } };
  if (!body.result) throw new Error(`listing the seeded mail failed: ${JSON.stringify(body)}`);
  return body.result.messages.map((m) => ({ id: m.message_id, subject: m.subject }));
}
