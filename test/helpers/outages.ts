import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, type Socket, connect, createServer } from 'node:net';
import type { Db } from '../../src/store/db';
import { freePort } from './ports';

/**
 * Outages a test can switch on and off mid-call: a TCP proxy that cuts every connection through it (a Redis
 * link lost), a database whose queries fail as an unreachable server's do, and a private Redis server that can
 * be restarted empty (no persistence) — never the shared one.
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
