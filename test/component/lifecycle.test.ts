import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { startHub, stopOnSignals } from '../../src/server';
import { openPglite } from '../../src/store/pglite';
import { BUILT_IN_TOOLS } from '../../src/tools';
import { services, testConfig, testEnv, SECRET_A } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { captureLogs } from '../helpers/logs';
import { slowTool } from '../helpers/tools';

/** A fresh connection per call (no keep-alive agent), like a new client arriving. */
function post(url: string, body: unknown): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/api/internal/tools/execute/`,
      { method: 'POST', agent: false, headers: { Authorization: `ServiceSecret ${SECRET_A}`, 'Content-Type': 'application/json' } },
      (res) => {
        let data = '';
        res.on('data', (c: Buffer) => (data += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, connection: res.headers.connection }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const slowCall = (delay_ms: number) => anExecuteBody({ tool: 'test_slow', inputs: { delay_ms } });

// Each case starts a real Hub (PGlite's WASM runtime, migrations): seconds on a loaded 2-core machine. The
// allowance is generous so load never fails a case; none of them waits on it.
jest.setTimeout(90_000);

describe('a running Hub (real server)', () => {
  const { databaseUrl, redisUrl } = services();

  it('when it starts on the configured database and Redis, then it is ready and serves the contract', async () => {
    const hub = await startHub(testConfig({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl }), { logger: captureLogs().logger });
    try {
      const ready = (await fetch(`${hub.url}/readyz`).then((r) => r.json())) as { status: string; checks: object };
      expect(ready.status).toBe('ready');
      expect(Object.keys(ready.checks)).toEqual(redisUrl ? ['database', 'redis'] : ['database']);
      const res = await post(hub.url, anExecuteBody());
      expect(res.status).toBe(200);
    } finally {
      await hub.close();
    }
  });

  it('when SIGTERM-style close starts, then in-flight calls finish, new connections are refused, pools close', async () => {
    const logs = captureLogs();
    const hub = await startHub(testConfig(), { logger: logs.logger, tools: [...BUILT_IN_TOOLS, slowTool] });
    const inFlight = post(hub.url, slowCall(400));
    await new Promise((r) => setTimeout(r, 100));
    const closed = hub.close();
    expect(hub.lifecycle.shuttingDown).toBe(true);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result).toEqual({ waited_ms: 400 });
    expect(res.connection).toBe('close'); // the client will not reuse a connection that is about to go
    await closed;
    await expect(post(hub.url, anExecuteBody())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(logs.entries().some((e) => e.msg === 'hub stopped')).toBe(true);
  });

  it('when a call outlives the shutdown deadline, then it is cut off and shutdown still completes on time', async () => {
    const logs = captureLogs();
    const hub = await startHub(testConfig({ HUB_TOOL_DEADLINE_MS: '300', HUB_SHUTDOWN_TIMEOUT_MS: '300' }), {
      logger: logs.logger,
      tools: [...BUILT_IN_TOOLS, slowTool],
    });
    const inFlight = post(hub.url, slowCall(5_000)).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await hub.close();
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(await inFlight).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    expect(logs.entries().some((e) => e.msg === 'shutdown deadline reached; closing remaining connections')).toBe(true);
  });

  it('when Redis is unreachable at start, then the Hub still starts, serves, and reports degraded', async () => {
    const hub = await startHub(testConfig({ REDIS_URL: 'redis://127.0.0.1:1' }), { logger: captureLogs().logger });
    try {
      const ready = await fetch(`${hub.url}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { status: string; checks: { redis: { ok: boolean } } };
      expect(body.status).toBe('degraded');
      expect(body.checks.redis.ok).toBe(false);
      expect((await post(hub.url, anExecuteBody())).status).toBe(200);
    } finally {
      await hub.close();
    }
  });

  // Under load this once timed out: it started three Hubs. Now a bare socket holds the port and the directory
  // is reopened with PGlite alone — one Hub start instead of three.
  it('when the port is taken, then start fails naming HUB_PORT and leaves nothing open', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createServer } = await import('node:net');
    const dir = mkdtempSync(join(tmpdir(), 'hub-port-'));
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      await expect(startHub(testConfig({ HUB_PORT: String(port), HUB_DATA_DIR: dir }), { logger: captureLogs().logger })).rejects.toMatchObject({
        code: 'EADDRINUSE',
        message: `port ${port} on 127.0.0.1 is already in use: set HUB_PORT to a free port, or stop what holds it`,
      });
      // the failed start released its embedded database: the directory can be opened again
      const again = await openPglite(dir);
      await again.close();
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when a second Hub opens the same embedded data directory, then it is refused instead of corrupting it', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'hub-lock-'));
    const first = await startHub(testConfig({ HUB_DATA_DIR: dir }), { logger: captureLogs().logger });
    try {
      await expect(startHub(testConfig({ HUB_DATA_DIR: dir }), { logger: captureLogs().logger })).rejects.toThrow(/is in use by process/);
    } finally {
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a running Hub whose embedded database's thread dies", () => {
  it('when it dies, then the loss is logged as fatal, liveness and readiness fail, and the entry point closes the Hub and exits 1', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'hub-lost-'));
    const logs = captureLogs();
    const hub = await startHub(testConfig({ HUB_DATA_DIR: dir, HUB_SHUTDOWN_GRACE_MS: '3000' }), { logger: logs.logger });
    const exits: number[] = [];
    const exited = new Promise<void>((resolve) => {
      const removeListeners = stopOnSignals(hub, (code) => {
        exits.push(code);
        removeListeners();
        resolve();
      });
    });
    try {
      expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
      // An uncaught error on PGlite's thread, as a WASM abort would be: a message it has no case for throws there.
      hub.db.channel!().postMessage({ id: 1, type: 'no-such-request' });
      expect((await hub.lost).message).toMatch(/^PGlite is closed: unknown message/);
      // The grace period (as a load balancer drains) keeps it answering: both probes now fail.
      const live = await fetch(`${hub.url}/healthz`);
      expect({ status: live.status, body: await live.json() }).toEqual({ status: 503, body: { status: 'failed', reason: 'database_lost' } });
      const ready = await fetch(`${hub.url}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 503, body: { checks: { database: { ok: false, error: 'lost' } } } });
      const call = await post(hub.url, anExecuteBody({ tool: 'calendar_list_calendars', inputs: {} })); // its credentials are in the database
      expect({ status: call.status, code: JSON.parse(call.body).error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      await exited;
      expect(exits).toEqual([1]);
      expect(logs.entries().find((e) => e.level === 60)).toMatchObject({ msg: expect.stringContaining('the embedded database is gone') });
      expect(logs.entries().some((e) => e.msg === 'hub stopped')).toBe(true);
      await (await openPglite(dir)).close(); // the data directory was released: a new process can open it
    } finally {
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The compiled Hub (`npm run build`) as production runs it, until its "hub listening" line says where. */
function spawnHub(env: Record<string, string | undefined>): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, '../../dist/src/main.js')], {
      env: { PATH: process.env.PATH, ...testEnv(env) } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const listening = buffered.split('\n').find((line) => line.includes('"hub listening"'));
      if (listening) resolve({ child, url: `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`, exited });
    });
    child.once('exit', (code) => reject(new Error(`hub exited with ${code} before listening`)));
  });
}

describe('a Hub process receiving SIGTERM', () => {
  it('when the grace period runs, then /readyz answers 503 while calls are still served; then the listener closes and the process exits 0', async () => {
    const grace = 1_500;
    const hub = await spawnHub({ HUB_SHUTDOWN_GRACE_MS: String(grace), HUB_PORT: '0' });
    try {
      expect((await fetch(`${hub.url}/readyz`)).status).toBe(200);
      const t0 = Date.now();
      hub.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));

      const ready = await fetch(`${hub.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'shutting_down' });
      const during = await post(hub.url, anExecuteBody()); // a load balancer that has not noticed yet: still served
      expect(during.status).toBe(200);
      expect(during.connection).toBe('close');
      expect(Date.now() - t0).toBeLessThan(grace); // all of this happened inside the grace period

      expect(await hub.exited).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(grace);
      await expect(post(hub.url, anExecuteBody())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      if (hub.child.exitCode === null) hub.child.kill('SIGKILL');
    }
  });
});
