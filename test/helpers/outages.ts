import { type ChildProcess, spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, type Socket, connect, createServer } from 'node:net';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app';
import { type CredentialEvents, openCredentialEvents } from '../../src/integrations/credential-events';
import type { Db } from '../../src/store/db';
import { openRedis } from '../../src/store/redis';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { openTestDb, preferredDriver } from './db';
import { services, testConfig } from './env';
import { serviceAuth } from './http';
import { captureLogs } from './logs';
import { freePort } from './ports';
import { TcpProxy } from './proxy';
import { TEST_TOOLS } from './tools';

/**
 * Outages a test can switch on and off mid-call: a TCP proxy that cuts every connection through it (a Redis
 * link lost), a database whose queries fail as an unreachable server's do, a private Redis server that can be
 * restarted empty (no persistence) — never the shared one — and a Hub whose Redis is behind a TCP proxy the test
 * can black-hole (test/helpers/proxy.ts).
 */

export interface CuttableProxy {
  port: number;
  /** Destroys every open connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (cut) return void client.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `db`, except that while cut every query fails with ECONNREFUSED (what isDatabaseUnavailable recognises). */
export function cuttableDb(db: Db): Db & { cut(): void; restore(): void } {
  let cut = false;
  const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
  return {
    kind: db.kind,
    query: (sql, params) => (cut ? refused() : db.query(sql, params)),
    exec: (sql) => (cut ? refused() : db.exec(sql)),
    transaction: (fn) => (cut ? refused() : db.transaction(fn)),
    ping: (ms) => (cut ? refused() : db.ping(ms)),
    close: () => db.close(),
    cut() {
      cut = true;
    },
    restore() {
      cut = false;
    },
  };
}

export interface PrivateRedis {
  url: string;
  /** Kills the server and starts a new one on the same port: every record is gone, as after a restart without persistence. */
  restartEmpty(): Promise<void>;
  stop(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      child.once('error', reject);
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('Ready to accept connections') && resolve());
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async restartEmpty() {
      await stop();
      await start();
    },
    stop,
  };
}

/** One call over a kept-alive connection, timed as its caller sees it. */
export async function timedPost(url: string, body: object): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: serviceAuth(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), ms: performance.now() - t0 };
}

export interface HubBehindRedisProxy {
  proxy: TcpProxy;
  redis: Redis;
  events: CredentialEvents;
  url: string;
  logs: ReturnType<typeof captureLogs>;
  close(): Promise<void>;
}

/** A Hub on a real port whose Redis client goes through a TCP proxy the test can black-hole. */
export async function hubBehindRedisProxy(env: Record<string, string>): Promise<HubBehindRedisProxy> {
  const logs = captureLogs();
  const real = new URL(services().redisUrl!);
  const proxy = new TcpProxy({ host: real.hostname, port: Number(real.port || 6379) });
  await proxy.up();
  const redis = await openRedis(proxy.urlFor(services().redisUrl!), logs.logger);
  const events = await openCredentialEvents(redis, logs.logger);
  const testDb = await openTestDb(preferredDriver());
  const { app } = createApp({
    config: testConfig(env),
    logger: logs.logger,
    db: testDb.db,
    redis,
    credentialEvents: events,
    tools: [...BUILT_IN_TOOLS, ...TEST_TOOLS],
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    proxy,
    redis,
    events,
    logs,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await events.close();
      redis.disconnect();
      await proxy.cut();
      await testDb.drop();
    },
  };
}
