import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestHub } from './hub';
import type { MicrosoftWorld } from './microsoft';
import { MS_DOMAIN, connectToMicrosoft } from './microsoft-connected';

/**
 * What a suite about Outlook's per-mailbox limits needs around the Microsoft sandbox: Graph behind a meter that
 * sees every request of each mailbox come and go (so a test can say how many were in flight at once, whatever the
 * sandbox itself allows), the sandbox's throttling set to exactly the limits the Hub enforces (so a request the Hub
 * should have held back meets Graph's 429 there), and fresh mailboxes connected for calendar and mail.
 */

export interface GraphMeter {
  /** Graph's versioned root through the meter: the Hub's HUB_MICROSOFT_GRAPH_URL. */
  graphUrl: string;
  /** The most requests of `upn`'s mailbox the sandbox was handling at once. */
  peak(upn: string): number;
  close(): Promise<void>;
}

/** Serves the sandbox's own app on a second port, counting each mailbox's requests from arrival to their answer's end. */
export async function meterGraph(world: MicrosoftWorld): Promise<GraphMeter> {
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  // Whose mailbox a request reaches: the signed-in user of its access token (the tools use /me and delegated access).
  const mailboxOf = (req: IncomingMessage): string | undefined => {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const grant = token ? world.sandbox.world.identity.access.get(token) : undefined;
    return grant && world.sandbox.world.people.get(grant.userId)?.userPrincipalName.toLowerCase();
  };
  const server: Server = createServer((req, res) => {
    const upn = req.url?.startsWith('/v1.0/') ? mailboxOf(req) : undefined;
    if (upn) {
      const now = (inFlight.get(upn) ?? 0) + 1;
      inFlight.set(upn, now);
      peaks.set(upn, Math.max(peaks.get(upn) ?? 0, now));
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        inFlight.set(upn, inFlight.get(upn)! - 1);
      };
      res.once('finish', end);
      res.once('close', end);
    }
    world.sandbox.app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    graphUrl: `http://127.0.0.1:${port}/v1.0`,
    peak: (upn) => peaks.get(upn.toLowerCase()) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Hub's settings for a budget of `requests` per `windowS` and 4 in flight per mailbox (Microsoft's concurrency). */
export const mailboxLimitEnv = (requests: number, windowS: number): Record<string, string> => ({
  HUB_OUTLOOK_QUOTA_REQUESTS: String(requests),
  HUB_OUTLOOK_QUOTA_WINDOW_S: String(windowS),
  HUB_OUTLOOK_MAX_IN_FLIGHT: '4',
});

/**
 * Makes the sandbox throttle at exactly the Hub's limits (per app and mailbox, a sliding window, 429
 * ApplicationThrottled beyond; uploads at Microsoft's 150 MB per 300 s unless `uploads` says otherwise): a Hub
 * that let one request or one byte too many through would meet Graph's refusal. Clears the sandbox's counters.
 */
export async function throttleSandboxAt(world: MicrosoftWorld, requests: number, windowS: number, uploads?: { bytes: number; windowS: number }): Promise<void> {
  const upload = uploads ? { upload_bytes: uploads.bytes, upload_window_s: uploads.windowS } : {};
  const set = await world.control('PUT', '/throttling', { requests_per_window: requests, window_s: windowS, concurrent: 4, ...upload });
  if (set.status !== 200) throw new Error(`sandbox /throttling: ${set.status} ${JSON.stringify(set.body)}`);
}

export interface Mailbox {
  upn: string;
  customerId: string;
}

/** A new sandbox account (an address no earlier run used), its calendar and mail connected for a new customer. */
export async function connectNewMailbox(hub: TestHub, world: MicrosoftWorld, name: string): Promise<Mailbox> {
  const upn = `${name}.${randomUUID().slice(0, 8)}@${MS_DOMAIN}`;
  const made = await world.control('POST', '/accounts', { upn, display_name: name, time_zone: 'UTC' });
  if (made.status >= 300) throw new Error(`sandbox POST /accounts: ${made.status} ${JSON.stringify(made.body)}`);
  const customerId = randomUUID();
  await connectToMicrosoft(hub, world, { upn, integration: 'outlook_calendar', customerId });
  await connectToMicrosoft(hub, world, { upn, integration: 'outlook_mail', customerId });
  return { upn, customerId };
}

/** What the sandbox answered for `upn`'s mailbox on Graph (not the identity platform), in order. */
export async function graphAnswersFor(world: MicrosoftWorld, upn: string): Promise<{ operation: string | null; status: number }[]> {
  const log = (await world.control('GET', '/requests')).body.requests as { path: string; user: string | null; operation: string | null; status: number }[];
  return log.filter((r) => r.user?.toLowerCase() === upn.toLowerCase() && r.operation !== null).map(({ operation, status }) => ({ operation, status }));
}
