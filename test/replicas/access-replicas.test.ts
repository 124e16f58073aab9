import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHub } from '../../src/server';
import { loadConfig } from '../../src/config';
import { asAdmin } from '../helpers/admin';
import { services, testEnv } from '../helpers/env';
import { captureLogs } from '../helpers/logs';

/**
 * Service keys and policies on three Hub processes sharing PostgreSQL and Redis: a conversation's call budget
 * holds across all of them, and a revocation or a policy change made through one replica is in force on the
 * others at once — HUB_ACCESS_CACHE_TTL_MS is ten minutes here, so only the Redis event can explain it.
 */

jest.setTimeout(60_000);
const { databaseUrl, redisUrl } = services();
const REPLICA = join(__dirname, 'replica.js');
const SECRET = randomBytes(32).toString('hex');
const KEY = `r1:${randomBytes(32).toString('base64')}`;

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

async function http(replica: Replica, method: string, path: string, auth: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${replica.url}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any, etag: res.headers.get('etag') };
}
const echo = (replica: Replica, customerId: string, options: { key?: string; agentId?: string; conversationId?: string } = {}) =>
  http(replica, 'POST', '/api/internal/tools/execute/', `ServiceSecret ${options.key ?? SECRET}`, {
    tool: 'hub_echo',
    agent_id: options.agentId ?? randomUUID(),
    customer_id: customerId,
    inputs: { message: 'x' },
    context: { conversation_id: options.conversationId ?? null },
  });

/** Polls until `check` holds (well under a second with events; the cache TTL here is ten minutes). */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

const maybe = databaseUrl && redisUrl ? describe : describe.skip;

maybe('service keys and policies on three replicas sharing PostgreSQL and Redis', () => {
  let replicas: Replica[];

  beforeAll(async () => {
    if (!existsSync(join(__dirname, '..', '..', 'dist', 'src', 'server.js'))) throw new Error('dist/ is missing: npm test builds it first (npm run build)');
    const common = { DATABASE_URL: databaseUrl!, HUB_PORT: '0', HUB_HOST: '127.0.0.1' };
    // One in-process Hub applies the migrations first, so the replicas do not race to.
    const seeder = await startHub(loadConfig(testEnv({ ...common, HUB_SERVICE_SECRETS: SECRET, HUB_ENCRYPTION_KEYS: KEY })), { logger: captureLogs().logger });
    await seeder.close();
    const env = {
      ...common,
      REDIS_URL: redisUrl!,
      HUB_ACCESS_CACHE_TTL_MS: '600000',
      HUB_RATE_LIMIT_AGENT_POINTS: '100000',
      HUB_RATE_LIMIT_CUSTOMER_POINTS: '100000',
    };
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
  });
  afterAll(() => stopAll(replicas));

  test("when one conversation's calls are spread over the replicas and agents, then its budget holds exactly across all of them", async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    const agents = [agentId, randomUUID()];
    const put = await http(replicas[0]!, 'PUT', `/api/admin/customers/${customerId}/policy`, asAdmin(), { max_tool_calls_per_conversation: 10 });
    expect(put.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => echo(replicas[i % 3]!, customerId, { agentId: agents[i % 2], conversationId: 'conv-1' })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(20);
    expect(refused[0]!.body.error).toMatchObject({
      code: 'POLICY_DENIED',
      details: { rule: 'max_tool_calls_per_conversation', policy: 'customer', limit: 10 },
    });
    // Another conversation of the same agent has its own budget.
    expect((await echo(replicas[2]!, customerId, { agentId, conversationId: 'conv-2' })).status).toBe(200);
  });

  test('when an agent opens conversations on every replica at once, then its per-hour cap holds exactly across all of them', async () => {
    const customerId = randomUUID();
    const agentId = randomUUID();
    const put = await http(replicas[1]!, 'PUT', `/api/admin/customers/${customerId}/policy`, asAdmin(), {
      require_conversation_id: true,
      max_conversations_per_agent_per_hour: 4,
    });
    expect(put.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => echo(replicas[i % 3]!, customerId, { agentId, conversationId: `c-${i}` })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(4);
    expect(answers.find((a) => a.status === 403)!.body.error.details).toMatchObject({ rule: 'max_conversations_per_agent_per_hour', limit: 4 });
    expect((await echo(replicas[0]!, customerId, { agentId })).body.error.details.rule).toBe('require_conversation_id');
  });

  test('when a policy is changed through one replica, then the others follow it at once', async () => {
    const customerId = randomUUID();
    for (const r of replicas) expect((await echo(r, customerId)).status).toBe(200); // each caches "no policy"
    const put = await http(replicas[0]!, 'PUT', `/api/admin/customers/${customerId}/policy`, asAdmin(), { enabled_tools: [] });
    expect(put.status).toBe(201);
    for (const r of replicas.slice(1)) await within(2000, async () => (await echo(r, customerId)).status === 403);
    const removed = await http(replicas[1]!, 'DELETE', `/api/admin/customers/${customerId}/policy`, asAdmin(), undefined, { 'if-match': put.etag! });
    expect(removed.status).toBe(200);
    for (const r of [replicas[0]!, replicas[2]!]) await within(2000, async () => (await echo(r, customerId)).status === 200);
  });

  test('when a key made on one replica is revoked on another, then every replica refuses it at once', async () => {
    const customerId = randomUUID();
    const made = await http(replicas[0]!, 'POST', '/api/admin/service-keys', asAdmin(), { name: 'replicated', customer_ids: [customerId] });
    expect(made.status).toBe(201);
    const key = made.body.key as string;
    for (const r of replicas) await within(2000, async () => (await echo(r, customerId, { key })).status === 200);
    for (const r of replicas) expect((await echo(r, randomUUID(), { key })).status).toBe(403); // out of scope everywhere

    const revoked = await http(replicas[1]!, 'DELETE', `/api/admin/service-keys/${made.body.id}`, asAdmin());
    expect(revoked.status).toBe(200);
    expect((await echo(replicas[1]!, customerId, { key })).status).toBe(401); // the revoking replica: before it answered
    for (const r of [replicas[0]!, replicas[2]!]) await within(2000, async () => (await echo(r, customerId, { key })).status === 401);
  });
});
