import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SECRET_A, services, testEnv } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';

/**
 * HUB_PROCESSES (src/cluster.ts): the compiled Hub as production runs it, forking one Hub process per core that
 * share the port, PostgreSQL and Redis — each call served by one of them, a dead one replaced, SIGTERM draining all.
 */

jest.setTimeout(120_000);
const { databaseUrl, redisUrl } = services();

interface LogLine {
  msg: string;
  pid: number;
  port?: number;
}

/** The compiled Hub with `env`; its JSON log lines as they arrive. */
function spawnCluster(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], {
    env: { PATH: process.env.PATH, ...testEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, ...env }) } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: LogLine[] = [];
  const waiters: { test: () => boolean; done: () => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    if (!text.startsWith('{')) return;
    lines.push(JSON.parse(text) as LogLine);
    for (const w of [...waiters]) {
      if (w.test()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
    }
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  /** Resolves once `test` holds over the lines seen so far. */
  const until = (test: () => boolean) => new Promise<void>((done) => (test() ? done() : waiters.push({ test, done })));
  const listening = () => lines.filter((l) => l.msg === 'hub listening');
  return { child, lines, exited, until, listening };
}

/** A fresh connection per call, so the primary hands each one to a process of its choice. */
function post(url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/api/internal/tools/execute/`,
      { method: 'POST', agent: false, headers: { Authorization: `ServiceSecret ${SECRET_A}`, 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

(databaseUrl && redisUrl ? describe : describe.skip)('HUB_PROCESSES=2 (node:cluster)', () => {
  it('when two processes run, then both listen on one port and serve calls; a killed one is replaced; SIGTERM stops all with exit 0', async () => {
    const hub = spawnCluster({ HUB_PROCESSES: '2' });
    try {
      await hub.until(() => hub.listening().length === 2);
      const [a, b] = hub.listening();
      expect(a!.port).toBe(b!.port);
      expect(a!.pid).not.toBe(b!.pid);
      expect(hub.lines.some((l) => l.msg === 'hub cluster primary: forked the hub processes' && l.pid === hub.child.pid)).toBe(true);
      const url = `http://127.0.0.1:${a!.port}`;

      const statuses = await Promise.all(Array.from({ length: 20 }, () => post(url, anExecuteBody())));
      expect(statuses.every((s) => s === 200)).toBe(true);
      // Round-robin hand-out: both processes wrote access lines.
      await hub.until(() => new Set(hub.lines.filter((l) => l.msg === 'request completed').map((l) => l.pid)).size === 2);

      process.kill(a!.pid, 'SIGKILL');
      await hub.until(() => hub.listening().length === 3);
      const replacement = hub.listening()[2]!;
      expect(replacement.port).toBe(a!.port);
      expect([a!.pid, b!.pid]).not.toContain(replacement.pid);
      expect(await post(url, anExecuteBody())).toBe(200);

      hub.child.kill('SIGTERM');
      expect(await hub.exited).toBe(0);
      expect(
        hub.lines
          .filter((l) => l.msg === 'hub stopped')
          .map((l) => l.pid)
          .sort(),
      ).toEqual([b!.pid, replacement.pid].sort());
    } finally {
      if (hub.child.exitCode === null) hub.child.kill('SIGKILL');
    }
  });

  it('when a process cannot start (its schema is behind), then the others are stopped and the primary exits 1', async () => {
    // HUB_MIGRATE_ON_START=false in the primary too and a database with no schema: every process refuses to serve.
    const hub = spawnCluster({
      HUB_PROCESSES: '2',
      HUB_MIGRATE_ON_START: 'false',
      DATABASE_URL: `${databaseUrl!.replace(/\/[^/]*$/, '')}/hub_cluster_missing_db`,
    });
    expect(await hub.exited).toBe(1);
    expect(hub.listening()).toHaveLength(0);
  });
});
