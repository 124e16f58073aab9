import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: its path, headers and raw body (verify the body as received, before parsing). */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  received: Received[];
  /** Statuses to answer a customer's next deliveries with (then 200), keyed by the event's customer_id. */
  statuses: Map<string, number[]>;
  close: () => Promise<void>;
}

/**
 * A customer's webhook receiver in the test: records every request; answers an event of a customer with the
 * statuses queued for that customer, then 200 — keyed by customer, so a late retry of another test's event cannot
 * take them.
 */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const statuses = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const customerId = (JSON.parse(body) as { data?: { customer_id?: string } }).data?.customer_id ?? '';
      res.writeHead(statuses.get(customerId)?.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, statuses, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The events `receiver` got for a customer at a path, once `n` of them arrived (letting the Hub's dispatcher round end in between). */
export async function eventsFor(
  receiver: WebhookReceiver,
  hub: { webhooks: { settled(): Promise<void> } },
  customerId: string,
  path: string,
  n: number,
  timeoutMs = 10_000,
): Promise<Received[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await hub.webhooks.settled();
    const got = receiver.received.filter((r) => r.path === path && JSON.parse(r.body).data.customer_id === customerId);
    if (got.length >= n || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 25));
  }
}
