import { randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config';
import { createGoogleClients } from '../src/providers/google/clients';
import { googleScope } from '../src/integrations/catalog';
import { createLogger } from '../src/logger';
import { createSandbox } from '@hub/google-sandbox';
import { startHub } from '../src/server';

/**
 * email_search latency against Gmail with realistic round trips: the Google sandbox in-process with 50 ms added
 * to every Gmail API request (a latency-only fault), 60 matching messages, and the real Hub (HTTP, PGlite in
 * memory, googleapis) searching with max_results 50 — once per per-mailbox in-flight cap (HUB_GMAIL_MAX_IN_FLIGHT:
 * 5, the default 10, and 25, the concurrency Gmail is reported to accept), each its own Hub. Measured side by
 * side in one run, interleaved: one sandbox round trip (a direct messages.get, what the Hub does per message),
 * the floor any client could reach within Gmail's per-user concurrency (the list, then the 50 gets 25 at a
 * time, straight from googleapis) and the whole email_search call per cap. With a cap of N the gets go N at a
 * time, so a search is ≈ 1 + ⌈50/N⌉ round trips. Sandbox and Hub share this process's CPU, so the ~50
 * requests' processing on both sides counts against the Hub — against real Gmail it would not.
 *
 * The sandbox's Gmail concurrency limit stays on (at its default, 25); its unit budget is switched off and the
 * Hub's raised, because the bench spends a mailbox's minute of quota in seconds — it measures latency, not quota.
 *
 * Knobs: BENCH_RUNS (default 15), BENCH_LATENCY_MS (default 50), BENCH_CAPS (default "5,10,25").
 */

const env = process.env; // bench entry point: reads its own knobs, hands the Hub a complete environment
const RUNS = Number(env.BENCH_RUNS ?? 15);
const LATENCY_MS = Number(env.BENCH_LATENCY_MS ?? 50);
const CAPS = (env.BENCH_CAPS ?? '5,10,25').split(',').map(Number);
const MESSAGES = 60;
const GMAIL_CONCURRENCY = 25; // the sandbox's (and reportedly Gmail's) per-user limit
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
  const quotas = await fetch(`${running.url}/_sandbox/quotas`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ gmail_units_per_user_per_minute: 0 }),
  });
  if (!quotas.ok) throw new Error(`sandbox /quotas: ${quotas.status}`);

  const hubEnv = {
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
    HUB_GMAIL_QUOTA_UNITS: '10000000',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(hubEnv);
  const hubs: { cap: number; hub: Awaited<ReturnType<typeof startHub>>; customerId: string; times: number[]; ratios: number[]; apiCalls: number }[] = [];
  for (const cap of CAPS) {
    const hub = await startHub(loadConfig({ ...hubEnv, HUB_GMAIL_MAX_IN_FLIGHT: String(cap) }), { logger: createLogger({ level: 'warn', secrets: [SECRET] }) });
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
    hubs.push({ cap, hub, customerId, times: [], ratios: [], apiCalls: 0 });
  }

  const gmail = createGoogleClients(config.google).gmail(createGoogleClients(config.google).withAccessToken(String(grant.access_token)));
  const someId = (await gmail.users.messages.list({ userId: 'me', maxResults: 1 })).data.messages![0]!.id!;
  const roundTrip = () => gmail.users.messages.get({ userId: 'me', id: someId, format: 'full' });
  const search = async (hub: Awaited<ReturnType<typeof startHub>>, customerId: string) => {
    const res = await fetch(`${hub.url}/api/internal/tools/execute/`, {
      method: 'POST',
      headers: { authorization: `ServiceSecret ${SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'email_search', agent_id: randomUUID(), customer_id: customerId, inputs: { query: 'subject:report', max_results: 50 } }),
    });
    const body = (await res.json()) as { success: boolean; result?: { total_results: number }; metadata: { api_calls: number } };
    if (!body.success || body.result?.total_results !== 50) throw new Error(`email_search failed: ${JSON.stringify(body).slice(0, 300)}`);
    return body.metadata.api_calls;
  };

  for (let i = 0; i < 3; i++) for (const h of hubs) await search(h.hub, h.customerId); // warm-up
  // The floor for any client: the list, then the 50 gets at Gmail's per-user concurrency, straight from googleapis.
  const direct = async () => {
    const ids = (await gmail.users.messages.list({ userId: 'me', q: 'subject:report', maxResults: 50 })).data.messages!.map((m) => m.id!);
    for (let i = 0; i < ids.length; i += GMAIL_CONCURRENCY) {
      await Promise.all(ids.slice(i, i + GMAIL_CONCURRENCY).map((id) => gmail.users.messages.get({ userId: 'me', id, format: 'full' })));
    }
  };
  const directs: number[] = [];
  const trips: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [trip] = await timed(roundTrip);
    trips.push(trip);
    directs.push((await timed(direct))[0]);
    for (const h of hubs) {
      const [ms, calls] = await timed(() => search(h.hub, h.customerId));
      h.times.push(ms);
      h.ratios.push(ms / trip);
      h.apiCalls = calls;
    }
  }
  const line = (label: string, ms: number, extra = '') => `  ${label.padEnd(58)} ${ms.toFixed(1).padStart(7)} ms${extra}\n`;
  process.stdout.write(
    `email_search, max_results 50, ${MESSAGES} matching messages, +${LATENCY_MS} ms on every Gmail request, ${RUNS} interleaved runs (medians):\n` +
      line('one sandbox round trip (messages.get, direct)', median(trips)) +
      line(
        `list + 50 gets ${GMAIL_CONCURRENCY} at a time, direct (no Hub): the floor`,
        median(directs),
        `  (${(median(directs) / median(trips)).toFixed(2)} round trips)`,
      ) +
      hubs
        .map((h) =>
          line(
            `email_search through the Hub, in-flight cap ${h.cap}`,
            median(h.times),
            `  = ${median(h.ratios).toFixed(2)} round trips (1 + ⌈50/${h.cap}⌉ = ${1 + Math.ceil(50 / h.cap)} waves; ${h.apiCalls} Google requests; max ${Math.max(...h.times).toFixed(1)} ms)`,
          ),
        )
        .join('') +
      `  one get after another would be ≈ 51 round trips\n`,
  );
  for (const h of hubs) await h.hub.close();
  await running.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
