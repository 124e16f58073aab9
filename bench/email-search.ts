import { randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config';
import { createGoogleClients } from '../src/integrations/google-clients';
import { googleScope } from '../src/integrations/integrations';
import { createLogger } from '../src/logger';
import { createSandbox } from '../src/sandbox/app';
import { startHub } from '../src/server';

/**
 * email_search latency against Gmail with realistic round trips: the Google sandbox in-process with 50 ms added
 * to every Gmail API request (a latency-only fault), 60 matching messages, and the real Hub (HTTP, PGlite in
 * memory, googleapis) searching with max_results 50. Measured side by side in one run, interleaved: one sandbox
 * round trip (a direct messages.get, what the Hub does per message), the floor any client could reach (the list,
 * then all 50 gets at once, straight from googleapis) and the whole email_search call. Sandbox and Hub share
 * this process's CPU, so the ~50 requests' processing on both sides (about one round trip's worth here) counts
 * against the Hub — against real Gmail it would not.
 * A search that fetched its 50 messages one after another would take ~51 round trips; the target is ≤ 3×.
 *
 * Knobs: BENCH_RUNS (default 15), BENCH_LATENCY_MS (default 50).
 */

const env = process.env; // bench entry point: reads its own knobs, hands the Hub a complete environment
const RUNS = Number(env.BENCH_RUNS ?? 15);
const LATENCY_MS = Number(env.BENCH_LATENCY_MS ?? 50);
const MESSAGES = 60;
const CLIENT = { clientId: 'bench.apps.googleusercontent.com', clientSecret: 'GOCSPX-bench-secret' };
const SECRET = randomBytes(32).toString('hex');
const EMAIL = 'ana@acme.example';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
};

async function main() {
  const sandbox = createSandbox({ seed: 1, control: true, clients: [{ ...CLIENT, redirectUris: ['http://127.0.0.1/cb'], name: 'bench' }] });
  const running = await sandbox.listen(0);
  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${running.url}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const messages = Array.from({ length: MESSAGES }, (_, i) => ({
    from: `Sender ${i} <sender${i}@partner.example>`,
    to: [EMAIL],
    subject: `Weekly report ${i}`,
    text: `Report number ${i}. ${'Figures and commentary. '.repeat(40)}`,
    date: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
    ...(i % 3 === 0 ? { attachments: [{ filename: `r${i}.pdf`, content_type: 'application/pdf', content_base64: randomBytes(4096).toString('base64') }] } : {}),
  }));
  await control('/accounts', { email: EMAIL, name: 'Ana García', messages });
  const scopes = [googleScope('gmail.send'), googleScope('gmail.readonly'), googleScope('gmail.modify')];
  const grant = await control('/tokens', { email: EMAIL, scopes, client_id: CLIENT.clientId, offline: true });
  await control('/faults', { path: '/gmail/**', latency_ms: LATENCY_MS });

  const config = loadConfig({
    HUB_PORT: '0',
    HUB_HOST: '127.0.0.1',
    HUB_PUBLIC_URL: 'http://127.0.0.1',
    HUB_SERVICE_SECRETS: SECRET,
    HUB_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    HUB_DATA_DIR: 'memory://',
    HUB_SHUTDOWN_GRACE_MS: '0',
    HUB_GOOGLE_SANDBOX_URL: running.url,
    HUB_GOOGLE_CLIENT_ID: CLIENT.clientId,
    HUB_GOOGLE_CLIENT_SECRET: CLIENT.clientSecret,
    LOG_LEVEL: 'warn',
  });
  const hub = await startHub(config, { logger: createLogger({ level: 'warn', secrets: [SECRET] }) });
  const customerId = randomUUID();
  await hub.store.save({
    customerId,
    userId: null,
    integration: 'google_gmail',
    accountEmail: EMAIL,
    scopes,
    accessToken: String(grant.access_token),
    refreshToken: String(grant.refresh_token),
    tokenExpiresAt: new Date(Date.now() + 3600_000),
    lastRefreshedAt: new Date(),
  });

  const gmail = createGoogleClients(config.google).gmail(createGoogleClients(config.google).withAccessToken(String(grant.access_token)));
  const someId = (await gmail.users.messages.list({ userId: 'me', maxResults: 1 })).data.messages![0]!.id!;
  const roundTrip = () => gmail.users.messages.get({ userId: 'me', id: someId, format: 'full' });
  const search = async () => {
    const res = await fetch(`${hub.url}/api/internal/tools/execute/`, {
      method: 'POST',
      headers: { authorization: `ServiceSecret ${SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'email_search', agent_id: randomUUID(), customer_id: customerId, inputs: { query: 'subject:report', max_results: 50 } }),
    });
    const body = (await res.json()) as { success: boolean; result?: { total_results: number }; metadata: { api_calls: number } };
    if (!body.success || body.result?.total_results !== 50) throw new Error(`email_search failed: ${JSON.stringify(body).slice(0, 300)}`);
    return body.metadata.api_calls;
  };

  for (let i = 0; i < 3; i++) await Promise.all([roundTrip(), search()].map((p) => p.catch((e: unknown) => Promise.reject(e)))); // warm-up
  // The floor for any client: the list, then all 50 gets at once, straight from googleapis (no Hub).
  const direct = async () => {
    const ids = (await gmail.users.messages.list({ userId: 'me', q: 'subject:report', maxResults: 50 })).data.messages!.map((m) => m.id!);
    await Promise.all(ids.map((id) => gmail.users.messages.get({ userId: 'me', id, format: 'full' })));
  };
  const directs: number[] = [];
  const trips: number[] = [];
  const searches: number[] = [];
  const perRun: number[] = [];
  let apiCalls = 0;
  for (let i = 0; i < RUNS; i++) {
    const [trip] = await timed(roundTrip);
    directs.push((await timed(direct))[0]);
    const [ms, calls] = await timed(search);
    trips.push(trip);
    searches.push(ms);
    perRun.push(ms / trip);
    apiCalls = calls;
  }
  const line = (label: string, ms: number, extra = '') => `  ${label.padEnd(52)} ${ms.toFixed(1).padStart(7)} ms${extra}\n`;
  process.stdout.write(
    `email_search, max_results 50, ${MESSAGES} matching messages, +${LATENCY_MS} ms on every Gmail request, ${RUNS} interleaved runs (medians):\n` +
      line('one sandbox round trip (messages.get, direct)', median(trips)) +
      line('list + 50 gets at once, direct (no Hub): the floor', median(directs)) +
      line('email_search through the Hub', median(searches), `  (${apiCalls} Google requests, max ${Math.max(...searches).toFixed(1)} ms)`) +
      `  email_search / one round trip: ${median(perRun).toFixed(2)}×  (median of per-run ratios; target ≤ 3×; one get after another ≈ ${apiCalls}×)\n` +
      `  email_search / floor:          ${(median(searches) / median(directs)).toFixed(2)}×  (the Hub's own cost: HTTP, auth, credentials, validation)\n`,
  );
  await hub.close();
  await running.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
