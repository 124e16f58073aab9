import { spawn } from 'node:child_process';
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedactor } from '../../src/audit/redact';
import { receiptThreadEntry, threadedReceiptWriter } from '../../src/audit/receipt-writer';
import type { CallRecord } from '../../src/audit/receipts';
import { openPostgres } from '../../src/store/postgres';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';
import { captureLogs } from '../helpers/logs';
import { openTestDb } from '../helpers/db';
import { services } from '../helpers/env';

/**
 * The receipt thread (src/audit/receipt-writer.ts): on PostgreSQL, and on embedded PGlite running on its own thread,
 * receipts are redacted, serialised and written by a thread of their own — and read exactly as the request thread would have written them; should the thread die,
 * what it held is counted as dropped and the request thread writes from then on.
 */

const call = (hub: TestHub, customerId: string, inputs: Record<string, unknown>, tool = 'hub_echo') =>
  client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send(anExecuteBody({ tool, customer_id: customerId, inputs, context: { request_id: `req-${randomUUID()}`, conversation_id: 'conv-1' } }));

type Row = Record<string, unknown>;
const comparable = (r: Row) => {
  const { id, call_id, request_id, started_at, ended_at, duration_ms, receipt_id, trace_id, ...rest } = r;
  void [id, call_id, request_id, started_at, ended_at, duration_ms, receipt_id, trace_id];
  return rest;
};

const onPostgres = services().databaseUrl ? test : test.skip;

/** A finished hub_echo call as the writer takes it: `execution` is its outcome. */
const aCallRecord = (message: string, execution: CallRecord['execution']): CallRecord => ({
  body: anExecuteBody({ inputs: { message } }),
  execution,
  version: '1.0.0',
  startedAt: Date.now(),
  endedAt: Date.now(),
  durationMs: 1,
  ops: [],
  opsOmitted: 0,
  traceId: null,
});

/** Calls both Hubs with the same cases; their receipts must be the same, column for column. */
async function expectSameReceipts(threaded: TestHub, inline: TestHub) {
  expect(threaded.audit.stats().writer).toBe('thread');
  expect(inline.audit.stats().writer).toBe('inline');
  const [a, b] = [randomUUID(), randomUUID()];
  const cases: [Record<string, unknown>, string?][] = [
    [{ message: 'hello, ☕ receipts' }],
    [{ message: 'x'.repeat(5_000) }],
    [{ message: 42 }], // refused: not a string
    [{ wrong: true }, 'no_such_tool'],
  ];
  for (const [inputs, tool] of cases) {
    await call(threaded, a, inputs, tool);
    await call(inline, b, inputs, tool);
  }
  await Promise.all([threaded.audit.drain(), inline.audit.drain()]);
  const rows = async (customerId: string) =>
    (await threaded.testDb.db.query<Row>('SELECT * FROM audit_receipts WHERE customer_id = $1 ORDER BY started_at', [customerId])).map(comparable);
  const [fromThread, fromRequest] = [await rows(a), await rows(b)];
  expect(fromThread).toHaveLength(cases.length);
  expect(fromThread.map((r) => ({ ...r, customer_id: null, agent_id: null }))).toEqual(fromRequest.map((r) => ({ ...r, customer_id: null, agent_id: null })));
  expect(JSON.stringify(fromThread)).not.toContain('hello');
  expect(threaded.audit.stats()).toMatchObject({ queued: 0, written: cases.length, dropped: 0 });
}

onPostgres('when the Hub runs on PostgreSQL, then receipts are written by the receipt thread, the same receipts the request thread writes', async () => {
  const threaded = await buildTestHub({ env: { HUB_AUDIT_FLUSH_MS: '20' } });
  // A second Hub on the same database (so the same audit key) writing on its request thread.
  const inline = await buildTestHub({
    db: openPostgres({ url: threaded.testDb.url!, poolMax: 2, logger: captureLogs().logger }),
    env: { HUB_AUDIT_THREAD: 'off' },
  });
  try {
    await expectSameReceipts(threaded, inline);
  } finally {
    await inline.close();
    await threaded.close();
  }
});

test('when the Hub runs on embedded PGlite (on its thread), then receipts are made by the receipt thread and sent straight to PGlite, the same receipts the request thread writes', async () => {
  const threaded = await buildTestHub({ driver: 'pglite', env: { HUB_AUDIT_FLUSH_MS: '20' } });
  // A second Hub on the same PGlite (the same audit key) writing on its request thread; closing it leaves the database open.
  const inline = await buildTestHub({ db: { ...threaded.testDb.db, close: async () => {} }, env: { HUB_AUDIT_THREAD: 'off' } });
  try {
    await expectSameReceipts(threaded, inline);
  } finally {
    await inline.close();
    await threaded.close();
  }
});

test('when the receipt thread dies, then what it held is counted as dropped and later receipts are written on the request thread', async () => {
  const crashing = join(tmpdir(), `crashing-receipt-thread-${randomUUID()}.js`);
  writeFileSync(crashing, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
  const testDb = await openTestDb('pglite');
  const logs = captureLogs();
  const drops: number[] = [];
  const secret = randomBytes(32);
  const writer = threadedReceiptWriter({
    db: testDb.db,
    logger: logs.logger,
    mode: 'redacted',
    redact: createRedactor('redacted', secret),
    maxQueued: 1_000,
    batchSize: 25,
    flushIntervalMs: 10,
    retryForMs: 60_000,
    onDrop: (n) => drops.push(n),
    database: { url: 'postgres://never-used.invalid/hub', poolMax: 1 },
    key: createSecretKey(secret),
    secret,
    entry: crashing,
  });
  const record = (message: string) => aCallRecord(message, { ok: true, tool: 'hub_echo', value: { message }, requestId: randomUUID(), apiCalls: 0 });
  try {
    for (let i = 0; i < 3; i++) writer.push(record(`lost ${i}`));
    await writer.drain(2_000);
    await new Promise((r) => setTimeout(r, 200)); // the thread's exit reaches this thread
    expect(drops.reduce((s, n) => s + n, 0)).toBe(3);
    expect(logs.entries().some((e) => String(e.msg).includes('audit receipt thread failed'))).toBe(true);
    for (let i = 0; i < 2; i++) writer.push(record(`kept ${i}`));
    await writer.drain(2_000);
    expect(writer.stats()).toMatchObject({ writer: 'inline', written: 2, dropped: 3, queued: 0 });
    const stored = await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_receipts');
    expect(stored[0]!.n).toBe(2);
  } finally {
    await writer.close();
    await testDb.drop();
  }
});

test('when a receipt writer is never closed, then its thread does not keep the process alive', async () => {
  // A process of its own: the compiled writer, a thread started, a receipt handed over, no close().
  const script = `
    const { threadedReceiptWriter, receiptThreadEntry } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'src', 'audit', 'receipt-writer.js'))});
    const { createRedactor } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'src', 'audit', 'redact.js'))});
    const key = require('node:crypto').randomBytes(32);
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const w = threadedReceiptWriter({ db: {}, logger: log, mode: 'none', redact: createRedactor('none', key), maxQueued: 10, batchSize: 10,
      flushIntervalMs: 50, retryForMs: 1000, database: { url: 'postgres://127.0.0.1:9/none', poolMax: 1 }, secret: key,
      key: require('node:crypto').createSecretKey(key), entry: receiptThreadEntry() });
    w.stats();
  `;
  const started = Date.now();
  const child = spawn(process.execPath, ['-e', script], { stdio: 'inherit', timeout: 10_000 }); // killed if it hangs
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000);
});

onPostgres('when facts hold what JSON cannot write (a BigInt in an error’s details), then they cross to the thread as objects and are written', async () => {
  const testDb = await openTestDb('postgres');
  const secret = randomBytes(32);
  const writer = threadedReceiptWriter({
    db: testDb.db,
    logger: captureLogs().logger,
    mode: 'redacted',
    redact: createRedactor('redacted', secret),
    maxQueued: 100,
    batchSize: 25,
    flushIntervalMs: 10,
    retryForMs: 60_000,
    database: { url: testDb.url!, poolMax: 1 },
    key: createSecretKey(secret),
    secret,
    entry: receiptThreadEntry()!,
  });
  const record = (details: Record<string, unknown>) =>
    aCallRecord('m', {
      ok: false,
      tool: 'hub_echo',
      requestId: randomUUID(),
      apiCalls: 0,
      error: { code: 'EXTERNAL_API_ERROR', retryable: true, message: 'upstream failed', details },
    });
  try {
    writer.push(record({ quota: 10n ** 20n, at: new Date(0) }));
    writer.push(record({ reason: 'plain' }));
    await writer.drain(5_000);
    expect(writer.stats()).toMatchObject({ writer: 'thread', written: 2, dropped: 0, queued: 0 });
    const stored = await testDb.db.query<{ error: { code: string } }>('SELECT error FROM audit_receipts ORDER BY id');
    expect(stored.map((r) => r.error.code)).toEqual(['EXTERNAL_API_ERROR', 'EXTERNAL_API_ERROR']);
  } finally {
    await writer.close();
    await testDb.drop();
  }
});
