import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import type { Db } from '../../src/store/db';
import { openRedis } from '../../src/store/redis';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { type Connected, runTool, sandboxHubEnv, sandboxRequestsFrom } from '../helpers/connected';
import { ANA, BEN, mailboxAt, twoConnectedMailboxes } from '../helpers/email';
import { services, testConfig } from '../helpers/env';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { type CapturedLogs, captureLogs } from '../helpers/logs';
import { type PrivateRedis, cuttableDb, cuttableProxy, privateRedis } from '../helpers/outages';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * email_send at most once when the idempotency store fails during a send (issue: the first call answered 200
 * and a retry after the lease sent a second copy). The send takes 800 ms at Gmail; the store is cut while it
 * runs. The outcome is kept on the replica and stored once the store is back; a retry elsewhere after the
 * lease takes the key over and finds the message in Sent instead of sending it again.
 */

const { redisUrl } = services();
const sb = useTestSandbox();
let hub: TestHub;
beforeAll(async () => {
  hub = await buildTestHub({ env: sandboxHubEnv(sb) });
});
afterAll(() => hub.close());

const mail = { to: [BEN.email], subject: 'Quarterly numbers', body: 'Attached below.' };
const sentBy = (email: string) => mailboxAt(sb, email).filter((m) => m.labelIds.includes('SENT'));
/** Tool deadline 3 s: the lease (deadline + 2 s) passes 5 s after a call starts. */
const LEASE_MS = 5_000;

interface Replica {
  hub: TestHub;
  logs: CapturedLogs;
}
const replica = (db: Db, redis: Redis | null): Replica => {
  const logs = captureLogs();
  const app = createApp({ config: testConfig(sandboxHubEnv(sb, { HUB_TOOL_DEADLINE_MS: '3000' })), logger: logs.logger, db, redis, tools: BUILT_IN_TOOLS }).app;
  return { hub: { ...hub, app }, logs };
};
const send = (r: Replica, who: Connected, requestId: string) => runTool(r.hub, who, 'email_send', mail, { requestId });
const slowSend = () => sb.control('POST', '/faults', { operation: 'gmail.users.messages.send', latency_ms: 800 });
const recordedLate = (r: Replica) => r.logs.entries().find((e) => e.msg === 'recorded the outcome of an earlier write');

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 8_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The behaviour every store shares once the send finished while it was unreachable. */
async function sendThroughOutage(a: Replica, outage: { cut(): void; restore(): void }, who: Connected) {
  const fault = (await slowSend()).body as { id: string };
  const requestId = `send-${randomUUID()}`;
  const started = Date.now();
  const first = send(a, who, requestId).then((r) => r);
  // Cut once the send is at Gmail (held there 800 ms), not after a fixed pause: on a busy machine the call may not
  // have taken its idempotency record yet, and the cut would then refuse it instead of interrupting it.
  await until('the send to reach Gmail', async () =>
    ((await sb.control('GET', '/faults')).body.faults as { id: string; hits: number }[]).some((f) => f.id === fault.id && f.hits > 0) ? true : undefined,
  );
  outage.cut();
  const answered = await first;
  expect(answered.status).toBe(200); // the mail went out, and the agent is told so
  const messageId = answered.body.result.message_id as string;
  expect(a.logs.text()).toContain('keeping it and retrying in the background');

  // The same replica answers retries from what it kept, store or no store.
  const local = await send(a, who, requestId).expect(200);
  expect(local.body).toMatchObject({ result: { message_id: messageId }, metadata: { idempotent_replay: true, api_calls: 0 } });
  return { requestId, messageId, started };
}

describe.each([
  ['Redis', 'redis'],
  ['PostgreSQL', 'postgres'],
] as const)('when %s is cut while a send runs', (_name, kind) => {
  const setup = async () => {
    if (kind === 'redis') {
      const url = new URL(redisUrl!);
      const proxy = await cuttableProxy({ host: url.hostname, port: Number(url.port || 6379) });
      const proxied = new URL(redisUrl!); // the same Redis database as `direct` (each test worker has its own)
      proxied.host = `127.0.0.1:${proxy.port}`;
      const viaProxy = await openRedis(proxied.toString(), captureLogs().logger);
      const direct = await openRedis(redisUrl!, captureLogs().logger);
      return {
        a: replica(hub.testDb.db, viaProxy),
        b: replica(hub.testDb.db, direct),
        outage: proxy,
        close: async () => {
          viaProxy.disconnect();
          direct.disconnect();
          await proxy.close();
        },
      };
    }
    const db = cuttableDb(hub.testDb.db);
    return { a: replica(db, null), b: replica(hub.testDb.db, null), outage: db, close: async () => {} };
  };
  const maybe = kind === 'redis' && !redisUrl ? test.skip : test;

  maybe(
    'and a retry reaches another replica after the lease, then it finds the mail in Sent: one copy, the same answer',
    async () => {
      const { a, b, outage, close } = await setup();
      try {
        const { ana } = await twoConnectedMailboxes(hub, sb);
        const { requestId, messageId, started } = await sendThroughOutage(a, outage, ana);
        expect((await send(b, ana, requestId)).status).toBe(409); // the lease still holds: request_in_progress
        await sleep(Math.max(0, started + LEASE_MS + 200 - Date.now()));
        const requests = await sandboxRequestsFrom(sb);
        // The lease began when A took the record, a little after `started` (more on a busy machine): B retries until it has passed.
        const retry = await until('the lease to pass', async () => {
          const res = await send(b, ana, requestId);
          return res.status === 409 ? undefined : res;
        });
        expect(retry.status).toBe(200);
        expect(retry.body.result.message_id).toBe(messageId);
        expect((await requests()).map((r) => r.operation)).toEqual(['gmail.users.messages.list', 'gmail.users.messages.get']);
        expect(sentBy(ANA.email)).toHaveLength(1);
        expect(mailboxAt(sb, BEN.email)).toHaveLength(1);

        outage.restore(); // A's kept outcome meets B's record: it does not overwrite it
        const late = await until('the kept outcome to be retried', () => recordedLate(a));
        expect(late).toMatchObject({ result: 'superseded' });
        expect((await send(b, ana, requestId).expect(200)).body.metadata).toMatchObject({ idempotent_replay: true, api_calls: 0 });
      } finally {
        outage.restore();
        await close();
      }
    },
    20_000,
  );

  maybe(
    'and the store comes back before the lease passes, then the kept outcome is stored and every replica replays it',
    async () => {
      const { a, b, outage, close } = await setup();
      try {
        const { ana } = await twoConnectedMailboxes(hub, sb);
        const { requestId, messageId } = await sendThroughOutage(a, outage, ana);
        outage.restore();
        expect(await until('the kept outcome to be stored', () => recordedLate(a))).toMatchObject({ result: 'stored' });
        const requests = await sandboxRequestsFrom(sb);
        const replayed = await send(b, ana, requestId).expect(200);
        expect(replayed.body).toMatchObject({ result: { message_id: messageId }, metadata: { idempotent_replay: true, api_calls: 0 } });
        expect(await requests()).toEqual([]);
        expect(sentBy(ANA.email)).toHaveLength(1);
      } finally {
        outage.restore();
        await close();
      }
    },
    20_000,
  );
});

describe('when Redis loses its records (restart without persistence)', () => {
  const maybe = redisUrl ? test : test.skip;
  /** A replica on a Redis server of the test's own, which it may restart or flush; Ana connected. */
  const onPrivateRedis = async (body: (a: Replica, ana: Connected, server: PrivateRedis, client: Redis) => Promise<void>) => {
    const server = await privateRedis();
    const client = await openRedis(server.url, captureLogs().logger);
    try {
      const { ana } = await twoConnectedMailboxes(hub, sb);
      await body(replica(hub.testDb.db, client), ana, server, client);
    } finally {
      client.disconnect();
      await server.stop();
    }
  };

  maybe(
    'and it restarts while a send runs, then the send re-creates its record and a retry replays it',
    () =>
      onPrivateRedis(async (a, ana, server, client) => {
        await slowSend();
        const requestId = `send-${randomUUID()}`;
        const first = send(a, ana, requestId).then((r) => r);
        await sleep(200);
        await server.restartEmpty();
        await until('the client to reconnect', () => (client.status === 'ready' ? true : undefined));
        const answered = await first;
        expect(answered.status).toBe(200);
        const retry = await until('a replayed answer', async () => {
          const r = await send(a, ana, requestId);
          return r.status === 200 ? r : undefined;
        });
        expect(retry.body).toMatchObject({ result: answered.body.result, metadata: { idempotent_replay: true } });
        expect(sentBy(ANA.email)).toHaveLength(1);
      }),
    20_000,
  );

  maybe(
    'and the record is gone by the time the retry comes, then the retry is told the store was reset and finds the mail in Sent',
    () =>
      onPrivateRedis(async (a, ana, _server, client) => {
        const requestId = `send-${randomUUID()}`;
        const first = await send(a, ana, requestId).expect(200);
        await client.flushall(); // this test's own server: every record and the epoch are gone
        const requests = await sandboxRequestsFrom(sb);
        const retry = await send(a, ana, requestId).expect(200);
        expect(retry.body.result).toEqual(first.body.result);
        expect((await requests()).map((r) => r.operation)).toEqual(['gmail.users.messages.list', 'gmail.users.messages.get']);
        expect(sentBy(ANA.email)).toHaveLength(1);
      }),
    20_000,
  );
});
