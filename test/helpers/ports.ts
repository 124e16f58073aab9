import { createServer } from 'node:net';

/**
 * A port free now, for a process started later (and restarted on the same port). Chosen below Linux's ephemeral
 * range (32768-60999 by default): a port the kernel handed out (listen(0)) can meanwhile become the local port of
 * some outgoing connection — other test workers open hundreds — and the later bind then fails (seen: a demo restart
 * found its port "already in use"). A random port in 20000-32767, checked by binding it, is never handed out so.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
}
