import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHub } from '../../src/server';
import { services, testEnv } from '../helpers/env';
import { aCredential } from '../helpers/factories';
import { captureLogs } from '../helpers/logs';
import { freePort } from '../helpers/ports';
import { SCOPES, type TestSandbox, startTestSandbox } from '../helpers/sandbox';
import { loadConfig } from '../../src/config';

/**
 * Three Hub processes (the compiled Hub, `test/replicas/replica.js`) sharing PostgreSQL, Redis and one Google
 * sandbox: limits hold globally, retries of one request_id write once, a replica killed mid-call loses and
 * duplicates nothing, and stopping Redis mid-run leaves limiting to the insurance limiter without hanging.
 */

jest.setTimeout(60_000);
const { databaseUrl, redisUrl } = services();
const REPLICA = join(__dirname, 'replica.js');
const SECRET = randomBytes(32).toString('hex');
const KEY = `r1:${randomBytes(32).toString('base64')}`;
const ANA = 'ana@acme.example';

interface Replica {
  url: string;
  child: ChildProcess;
}

function startReplica(env: Record<string, string>): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const child = fork(REPLICA, [], {
      env: { PATH: process.env.PATH, ...testEnv({ HUB_SERVICE_SECRETS: SECRET, HUB_ENCRYPTION_KEYS: KEY, LOG_LEVEL: 'warn' }), ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.once('message', (m: { port: number }) => resolve({ url: `http://127.0.0.1:${m.port}`, child }));
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
  });
}

const stopAll = (replicas: Replica[]) =>
  Promise.all(
    replicas.map((r) => (r.child.exitCode !== null || r.child.signalCode ? undefined : new Promise((done) => r.child.once('exit', done).kill('SIGTERM')))),
  );

async function execute(replica: Replica, body: Record<string, unknown>): Promise<{ status: number; body: any; ms: number }> {
  const t0 = Date.now();
  const res = await fetch(`${replica.url}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: `ServiceSecret ${SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), ms: Date.now() - t0 };
}

const maybe = databaseUrl && redisUrl ? describe : describe.skip;

maybe('three replicas sharing PostgreSQL, Redis and the Google sandbox', () => {
  let sb: TestSandbox;
  let customer: string;
  let common: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(join(__dirname, '..', '..', 'dist', 'src', 'server.js'))) throw new Error('dist/ is missing: npm test builds it first (npm run build)');
    sb = await startTestSandbox();
    await sb.createAccount({ email: ANA, time_zone: 'Europe/Madrid' });
    common = { DATABASE_URL: databaseUrl!, HUB_GOOGLE_SANDBOX_URL: sb.url, HUB_PORT: '0', HUB_HOST: '127.0.0.1' };
    // One in-process Hub on the same database applies the migrations and stores the customer's connection.
    const seeder = await startHub(loadConfig(testEnv({ ...common, HUB_SERVICE_SECRETS: SECRET, HUB_ENCRYPTION_KEYS: KEY })), { logger: captureLogs().logger });
    customer = randomUUID();
    const accessToken = await sb.token(ANA, [SCOPES.calendarEvents]);
    await seeder.store.save(aCredential({ customerId: customer, accountEmail: ANA, accessToken, scopes: [SCOPES.calendarEvents] }));
    await seeder.close();
  });
  afterAll(async () => {
    sb.expectFaithful();
    await sb.close();
  });

  const eventsNamed = async (summary: string) => {
    const calendar = sb.google.calendar(sb.google.withAccessToken(await sb.token(ANA, [SCOPES.calendarEvents])));
    const { data } = await calendar.events.list({ calendarId: 'primary', q: summary, showDeleted: true });
    return (data.items ?? []).filter((e) => e.summary === summary);
  };
  const createEvent = (replica: Replica, requestId: string, summary: string, delays: Record<string, number> = {}) =>
    execute(replica, {
      tool: 'test_create_event',
      agent_id: randomUUID(),
      customer_id: customer,
      inputs: { summary, start: '2026-11-24T10:00:00Z', end: '2026-11-24T11:00:00Z', ...delays },
      context: { request_id: requestId },
    });

  test('when load is spread over the replicas, then the customer limit holds globally (within 5 %)', async () => {
    const replicas = await Promise.all(
      [0, 1, 2].map(() =>
        startReplica({
          ...common,
          REDIS_URL: redisUrl!,
          HUB_RATE_LIMIT_CUSTOMER_POINTS: '100',
          HUB_RATE_LIMIT_AGENT_POINTS: '100000',
          HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: '1000',
        }),
      ),
    );
    try {
      const target = randomUUID();
      const statuses: number[] = [];
      const work = Array.from({ length: 300 }, (_, i) => i);
      await Promise.all(
        Array.from({ length: 30 }, async () => {
          for (let i = work.shift(); i !== undefined; i = work.shift()) {
            const res = await execute(replicas[i % 3]!, { tool: 'hub_echo', agent_id: randomUUID(), customer_id: target, inputs: { message: 'x' } });
            statuses.push(res.status);
          }
        }),
      );
      const passed = statuses.filter((s) => s === 200).length;
      expect(Math.abs(passed - 100)).toBeLessThanOrEqual(5);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    } finally {
      await stopAll(replicas);
    }
  });

  describe('writes', () => {
    let replicas: Replica[];
    const env = () => ({ ...common, REDIS_URL: redisUrl!, HUB_TOOL_DEADLINE_MS: '2000' });
    beforeAll(async () => {
      replicas = await Promise.all([0, 1, 2].map(() => startReplica(env())));
    });
    afterAll(() => stopAll(replicas));

    test('when a burst of retries of one request_id hits every replica, then exactly one event exists', async () => {
      const summary = `burst ${randomUUID()}`;
      const requestId = `req-${randomUUID()}`;
      const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => createEvent(replicas[i % 3]!, requestId, summary, { delay_after_ms: 100 })));
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
      expect(answers.every((a) => a.status === 200 || (a.status === 409 && a.body.error.retryable))).toBe(true);
      expect(await eventsNamed(summary)).toHaveLength(1);
    });

    test.each([
      ['after the event was created', { delay_after_ms: 1500 }, false],
      ['before the event was created', { delay_before_ms: 1500 }, true],
    ])('when the replica running a write is killed %s, then the retry completes it and exactly one event exists', async (_when, delays, createdByRetry) => {
      const summary = `crash ${randomUUID()}`;
      const requestId = `req-${randomUUID()}`;
      const victim = replicas[0]!;
      const inFlight = createEvent(victim, requestId, summary, delays).catch((err: Error) => err);
      await new Promise((r) => setTimeout(r, 400));
      victim.child.kill('SIGKILL');
      expect(await inFlight).toHaveProperty('message', 'fetch failed'); // the agent saw the connection die
      replicas[0] = await startReplica(env());

      let final: Awaited<ReturnType<typeof createEvent>> | undefined;
      for (let i = 0; i < 40 && final?.status !== 200; i++) {
        final = await createEvent(replicas[1 + (i % 2)]!, requestId, summary, delays);
        if (final.status !== 200) {
          expect(final.status).toBe(409); // the dead replica's lease, until it lapses
          expect(final.body.error.retryable).toBe(true);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      expect(final?.status).toBe(200);
      expect(final?.body.result.created).toBe(createdByRetry);
      expect(await eventsNamed(summary)).toHaveLength(1);
    });
  });

  test('when Redis stops mid-run, then limiting continues from the insurance limiter and no request hangs', async () => {
    const port = await freePort();
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      redis.once('error', reject);
      redis.stdout!.on('data', (d: Buffer) => d.toString().includes('Ready to accept connections') && resolve());
    });
    const replicas = await Promise.all(
      [0, 1, 2].map(() =>
        startReplica({
          ...common,
          REDIS_URL: `redis://127.0.0.1:${port}`,
          HUB_REPLICAS: '3',
          HUB_RATE_LIMIT_CUSTOMER_POINTS: '30',
          HUB_RATE_LIMIT_AGENT_POINTS: '100000',
        }),
      ),
    );
    try {
      const target = randomUUID();
      const call = (i: number) => execute(replicas[i % 3]!, { tool: 'hub_echo', agent_id: randomUUID(), customer_id: target, inputs: { message: 'x' } });
      for (let i = 0; i < 10; i++) expect((await call(i)).status).toBe(200);
      redis.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
      const after: { status: number; ms: number }[] = [];
      for (let i = 0; i < 45; i++) after.push(await call(i));
      expect(Math.max(...after.map((a) => a.ms))).toBeLessThan(2000);
      // Insurance: each replica allows 30 / 3 = 10 on its own, whatever Redis had counted.
      expect(after.filter((a) => a.status === 200)).toHaveLength(30);
      expect(after.filter((a) => a.status === 429)).toHaveLength(15);
      const ready = await fetch(`${replicas[0]!.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('degraded');
    } finally {
      redis.kill('SIGKILL');
      await stopAll(replicas);
    }
  });
});
