import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL or Redis that a test can break in the two ways networks break:
 * `cut()` drops every connection and refuses new ones (a crash, a restart); `blackhole()` keeps every
 * connection open and accepts new ones but forwards nothing, in either direction (a partition, a stalled
 * proxy, a paused VM) — bytes sent meanwhile are lost, as they would be. `resume()` forwards again.
 * `delay(ms)` forwards everything late (a slow link or a busy server), in order.
 */
export class TcpProxy {
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  private stalled = false;
  private delayMs = 0;
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens (on the same port again after a cut). */
  async up(): Promise<void> {
    this.server = createServer((inbound) => {
      const outbound = connect(this.target.port, this.target.host);
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      this.forward(inbound, outbound);
      this.forward(outbound, inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** False after cut() until up() again. */
  get listening(): boolean {
    return this.server !== undefined;
  }

  /** The target's URL through this proxy (same credentials and path). */
  urlFor(real: string): string {
    const url = new URL(real);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  blackhole(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
  }

  delay(ms: number): void {
    this.delayMs = ms;
  }

  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.stalled) return;
      const write = () => !to.destroyed && to.write(chunk);
      if (this.delayMs > 0)
        setTimeout(write, this.delayMs); // equal delays fire in order
      else write();
    });
  }
}
