import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config';
import { createCredentialStore } from '../../src/store/credential-store';
import { migrate } from '../../src/store/migrate';
import { openDatabase } from '../../src/store/open';
import { createTokenCipher } from '../../src/store/token-cipher';
import { SECRET_A, testEnv } from '../helpers/env';
import { GMAIL_SCOPES, aCredential } from '../helpers/factories';
import { captureLogs } from '../helpers/logs';
import { TEST_CLIENT } from '../helpers/sandbox';

/**
 * One customer's hostile HTML mail must not slow anyone else down. The compiled Hub (dist/, so the HTML worker
 * loads as it does in the image) and the Google sandbox run as processes of their own; this process only sends
 * requests and times them: while Ana's agent reads and searches mail of 5,000 and 175,000 nested <div> (30 KB,
 * 1 MB) and ordinary newsletters, another customer's hub_echo calls keep a p99 under 50 ms, and every email
 * call answers 200 within its budget. Before the worker pool, each 1 MB message blocked the event loop ~9.5 s.
 */

jest.setTimeout(120_000);
const ROOT = join(__dirname, '..', '..');
const ANA = 'ana@acme.example';

/** Starts `node script` and resolves with the first stdout line `pick` accepts (the child's address). */
function startProcess(script: string, env: Record<string, string | undefined>, pick: (line: string) => string | undefined): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, script)], { env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const url = pick(line);
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

const stop = (child: ChildProcess | undefined) =>
  child && child.exitCode === null && child.signalCode === null ? new Promise((done) => child.once('exit', done).kill('SIGTERM')) : undefined;

describe('hostile HTML and everyone else', () => {
  let sandbox: ChildProcess | undefined;
  let hub: ChildProcess | undefined;
  let hubUrl = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-html-'));
  const ana = randomUUID();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('dist/ is missing: npm test builds it first (npm run build)');
    const sb = await startProcess(
      'dist/src/sandbox/main.js',
      { SANDBOX_PORT: '0', SANDBOX_CONTROL: 'on', SANDBOX_DEMO_DATA: 'off', SANDBOX_SEED: '7', SANDBOX_CLIENT_ID: TEST_CLIENT.clientId, SANDBOX_CLIENT_SECRET: TEST_CLIENT.clientSecret },
      (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
    );
    sandbox = sb.child;
    const control = async (path: string, body: unknown) => {
      const res = await fetch(`${sb.url}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, string>>;
    };
    const paragraph = '<table><tr><td style="font-family:Arial"><p>Hello <b>Ana</b>, <a href="https://example.com/n">news</a> of the week.</p></td></tr></table>';
    const mail = (subject: string, html: string) => ({ from: 'news@example.com', to: [ANA], subject, html, date: '2024-01-10T09:30:00Z' });
    await control('/accounts', {
      email: ANA,
      messages: [mail('deep 30 KB', '<div>x'.repeat(5_000)), mail('deep 1 MB', '<div>x'.repeat(175_000)), mail('newsletter 400 KB', paragraph.repeat(3_000))],
    });
    const grant = await control('/tokens', { email: ANA, scopes: GMAIL_SCOPES, client_id: TEST_CLIENT.clientId, offline: true });

    // The Hub's embedded database, seeded with Ana's connection before the Hub process opens it.
    const env = testEnv({
      HUB_DATA_DIR: dataDir,
      HUB_GOOGLE_SANDBOX_URL: sb.url,
      HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
      HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
      HUB_RATE_LIMIT_CUSTOMER_POINTS: '100000',
      HUB_RATE_LIMIT_AGENT_POINTS: '100000',
      LOG_LEVEL: 'warn',
    });
    const config = loadConfig(env);
    const logger = captureLogs().logger;
    const db = await openDatabase(config.database, logger);
    await migrate(db, logger);
    await createCredentialStore(db, createTokenCipher(config.encryptionKeys)).save(
      aCredential({ customerId: ana, integration: 'google_gmail', accountEmail: ANA, scopes: GMAIL_SCOPES, accessToken: grant.access_token, refreshToken: grant.refresh_token }),
    );
    await db.close();

    const started = await startProcess('dist/src/main.js', { ...env, LOG_LEVEL: 'info' }, (line) => {
      const port = line.includes('"hub listening"') ? (JSON.parse(line) as { port?: number }).port : undefined;
      return port ? `http://127.0.0.1:${port}` : undefined;
    });
    hub = started.child;
    hubUrl = started.url;
    const listed = await execute(ana, 'email_search', { query: '', max_results: 10 });
    for (const m of listed.body.result.messages as { subject: string; message_id: string }[]) ids[m.subject] = m.message_id;
  });

  afterAll(async () => {
    await stop(hub);
    await stop(sandbox);
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function execute(customerId: string, tool: string, inputs: Record<string, unknown>) {
    const t0 = performance.now();
    const res = await fetch(`${hubUrl}/api/internal/tools/execute/`, {
      method: 'POST',
      headers: { authorization: `ServiceSecret ${SECRET_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool, agent_id: randomUUID(), customer_id: customerId, inputs }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const body: any = await res.json();
    return { status: res.status, body, ms: performance.now() - t0 };
  }

  it("when one customer reads and searches hostile HTML mail, then each call answers 200 within budget and another customer's hub_echo p99 stays under 50 ms", async () => {
    const other = randomUUID();
    const echo = () => execute(other, 'hub_echo', { message: 'ping' });
    for (let i = 0; i < 20; i++) await echo(); // warm: connections, JIT
    const quiet: number[] = [];
    for (let i = 0; i < 200; i++) quiet.push((await echo()).ms);
    quiet.sort((a, b) => a - b);

    let hostileDone = false;
    const hostile = (async () => {
      const calls: { tool: string; status: number; ms: number; degraded: unknown }[] = [];
      try {
        for (let round = 0; round < 3; round++) {
          for (const subject of ['deep 30 KB', 'deep 1 MB', 'newsletter 400 KB']) {
            const res = await execute(ana, 'email_read', { message_id: ids[subject] });
            calls.push({ tool: `email_read ${subject}`, status: res.status, ms: res.ms, degraded: res.body.result?.body_degraded });
          }
          const res = await execute(ana, 'email_search', { query: '', include_body: true, max_results: 10 });
          calls.push({ tool: 'email_search', status: res.status, ms: res.ms, degraded: res.body.result?.messages?.map((m: { body_degraded?: boolean }) => m.body_degraded ?? false) });
        }
      } finally {
        hostileDone = true;
      }
      return calls;
    })();

    const latencies: number[] = [];
    while (!hostileDone || latencies.length < 100) {
      const res = await echo();
      expect(res.status).toBe(200);
      latencies.push(res.ms);
    }
    const calls = await hostile;

    for (const call of calls) {
      expect({ tool: call.tool, status: call.status }).toEqual({ tool: call.tool, status: 200 });
      // The conversion budget (5 s per call) bounds every call, whatever the mail.
      expect(call.ms).toBeLessThan(8_000);
    }
    expect(calls.find((c) => c.tool === 'email_read deep 1 MB')?.degraded).toBe(true);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    process.stdout.write(`hostile-html: quiet p50 ${quiet[100]!.toFixed(1)} p99 ${quiet[197]!.toFixed(1)} ms; during: ${latencies.length} echo calls, p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; email calls ${calls.map((c) => Math.round(c.ms)).join('/')} ms\n`);
    expect(p99).toBeLessThan(50);
  });
});
