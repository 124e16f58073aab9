import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { testEnv } from '../helpers/env';

/**
 * Hub processes for the replica suites: the compiled Hub (`replica.js`, dist/) forked with the secrets every
 * replica of a suite shares, its port reported over IPC; calls to the execute endpoint; stopping them all.
 */

export const REPLICA_SECRET = randomBytes(32).toString('hex');
export const REPLICA_KEY = `r1:${randomBytes(32).toString('base64')}`;

export interface Replica {
  url: string;
  child: ChildProcess;
}

export function requireBuild(): void {
  if (!existsSync(join(__dirname, '..', '..', 'dist', 'src', 'server.js'))) throw new Error('dist/ is missing: npm test builds it first (npm run build)');
}

export function startReplica(env: Record<string, string>): Promise<Replica> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'replica.js'), [], {
      env: {
        PATH: process.env.PATH,
        ...testEnv({ HUB_SERVICE_SECRETS: REPLICA_SECRET, HUB_ENCRYPTION_KEYS: REPLICA_KEY, LOG_LEVEL: 'warn' }),
        ...env,
      } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.once('message', (m: { port: number }) => resolve({ url: `http://127.0.0.1:${m.port}`, child }));
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}`)));
  });
}

export const stopAll = (replicas: Replica[]) =>
  Promise.all(
    replicas.map((r) => (r.child.exitCode !== null || r.child.signalCode ? undefined : new Promise((done) => r.child.once('exit', done).kill('SIGTERM')))),
  );

export async function execute(replica: Replica, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${replica.url}/api/internal/tools/execute/`, {
    method: 'POST',
    headers: { authorization: `ServiceSecret ${REPLICA_SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
