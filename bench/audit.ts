import { randomBytes, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startHub } from '../src/server';

/**
 * `npm run bench:audit`: sustained tool calls with the audit trail writing `redacted` receipts into PostgreSQL
 * (DATABASE_URL, required; a schema of its own, dropped afterwards). Prints calls/s, receipts/s written and how
 * many receipts were lost (calls answered minus rows in audit_receipts, after the Hub's shutdown flush) —
 * expected 0 while the database is up. Then, side by side in the same run, the same load with
 * HUB_AUDIT_PAYLOADS=none (interleaved rounds), so the cost of redacting payloads shows as a ratio.
 *
 * The Hub runs in this process (autocannon shares its event loop): the absolute figures are lower than a
 * deployed Hub's; the ratio and "none lost" are the point.
 * Knobs: BENCH_SECONDS (per round, default 8), BENCH_CONNECTIONS (default 50).
 */

const env = process.env; // bench entry point
const SECONDS = Number(env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const SECRET = randomBytes(32).toString('hex');

async function run(databaseUrl: string, payloads: 'redacted' | 'none') {
  const schema = `bench_audit_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const config = loadConfig({
    HUB_PORT: '0',
    HUB_HOST: '127.0.0.1',
    HUB_PUBLIC_URL: 'http://127.0.0.1',
    HUB_SERVICE_SECRETS: SECRET,
    HUB_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    DATABASE_URL: url.toString(),
    HUB_AUDIT_PAYLOADS: payloads,
    HUB_RATE_LIMIT_CUSTOMER_POINTS: '10000000',
    HUB_RATE_LIMIT_AGENT_POINTS: '10000000',
    HUB_SHUTDOWN_GRACE_MS: '0',
    LOG_LEVEL: 'warn',
  });
  const hub = await startHub(config, { logger: createLogger({ level: 'warn' }) });
  const customerId = randomUUID();
  const body = JSON.stringify({
    tool: 'hub_echo',
    agent_id: randomUUID(),
    customer_id: customerId,
    inputs: { message: 'Meeting with John (john@example.com) at 14:00 — please confirm.' },
    context: { conversation_id: 'bench' },
  });
  const t0 = performance.now();
  const result = await autocannon({
    url: `${hub.url}/api/internal/tools/execute/`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'content-type': 'application/json', authorization: `ServiceSecret ${SECRET}` },
    body,
  });
  const callsDone = performance.now();
  // The calls the Hub answered, by its own count (hub_tool_calls_total): autocannon's `2xx` leaves out the last
  // request of each connection, and its `sent` counts requests it cut off at the end before the Hub had them.
  await hub.audit.drain(60_000);
  const drained = performance.now();
  await hub.close(); // after the requests still in the Hub have been answered
  const scrape = (await hub.metrics.scrape()).body;
  const calls = [...scrape.matchAll(/^hub_tool_calls_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  const stats = hub.audit.stats(); // after the shutdown flush: what it dropped counts too
  const [row] = (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.audit_receipts WHERE customer_id = $1`, [customerId])).rows;
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  return {
    payloads,
    calls,
    non2xx: result.non2xx,
    callsPerS: calls / ((callsDone - t0) / 1000),
    receipts: row!.n,
    receiptsPerS: row!.n / ((drained - t0) / 1000),
    catchUpMs: Math.round(drained - callsDone),
    lost: calls - row!.n,
    sent: result.requests.sent,
    dropped: stats.dropped,
    p99: result.latency.p99,
  };
}

async function main() {
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    process.stderr.write('bench:audit needs DATABASE_URL (a PostgreSQL server; the bench uses a schema of its own)\n');
    process.exit(1);
  }
  // Interleaved rounds (the first run of a process also pays for warming up): none, redacted, redacted, none.
  const rounds = [await run(databaseUrl, 'none'), await run(databaseUrl, 'redacted'), await run(databaseUrl, 'redacted'), await run(databaseUrl, 'none')];
  const sum = (payloads: string) => {
    const rs = rounds.filter((r) => r.payloads === payloads);
    return {
      callsPerS: rs.reduce((a, r) => a + r.callsPerS, 0) / rs.length,
      lost: rs.reduce((a, r) => a + r.lost, 0),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    };
  };
  const redacted = sum('redacted');
  const none = sum('none');
  for (const r of rounds) {
    process.stdout.write(
      `payloads=${r.payloads.padEnd(8)} calls=${r.calls} (${r.callsPerS.toFixed(0)}/s, p99 ${r.p99} ms, non-2xx ${r.non2xx})  ` +
        `receipts written=${r.receipts} (${r.receiptsPerS.toFixed(0)}/s, caught up ${r.catchUpMs} ms after the load)  lost=${r.lost} dropped=${r.dropped}` +
        `${r.sent !== r.calls ? ` (autocannon sent ${r.sent}, ${r.sent - r.calls} of them cut off before the Hub had them)` : ''}\n`,
    );
  }
  process.stdout.write(`calls/s redacted ÷ none: ${(redacted.callsPerS / none.callsPerS).toFixed(2)}\n`);
  if (redacted.non2xx !== 0 || none.non2xx !== 0) {
    process.stderr.write('some calls did not answer 200\n');
    process.exit(1);
  }
  if (redacted.lost !== 0 || none.lost !== 0) {
    process.stderr.write('receipts were lost while the database was up\n');
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
