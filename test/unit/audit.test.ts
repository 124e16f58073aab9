import { randomBytes } from 'node:crypto';
import { callIdOf, canonicalJson } from '../../src/audit/call-id';
import { createBatchWriter } from '../../src/audit/batch-writer';
import { MAX_PAYLOAD_CHARS, REMOVED, createRedactor } from '../../src/audit/redact';
import type { Db } from '../../src/store/db';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { secretProblem, signedHeaders } from '../../src/webhooks/signature';
import { guardedLookup, isForbiddenAddress, targetUrlProblem } from '../../src/webhooks/target';
import { webhookOf } from '../../src/webhooks/webhooks';
import { captureLogs } from '../helpers/logs';

const key = randomBytes(32);

describe('call_id', () => {
  const parts = { tool: 'hub_echo', version: '1.0.0', inputs: { a: 1, b: { c: 'x', d: [1, 2] } }, requestId: 'r-1' };
  test('when the inputs differ only in key order, then the call_id is the same', () => {
    expect(callIdOf(key, parts)).toBe(callIdOf(key, { ...parts, inputs: { b: { d: [1, 2], c: 'x' }, a: 1 } }));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
  test('when tool, version, inputs, request_id or key differ, then the call_id differs', () => {
    const id = callIdOf(key, parts);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    for (const other of [
      { ...parts, tool: 'x' },
      { ...parts, version: '2.0.0' },
      { ...parts, inputs: { a: 2 } },
      { ...parts, requestId: 'r-2' },
    ])
      expect(callIdOf(key, other)).not.toBe(id);
    expect(callIdOf(randomBytes(32), parts)).not.toBe(id);
    // length prefixes: moving characters between parts never collides
    expect(callIdOf(key, { ...parts, tool: 'ab', version: 'c' })).not.toBe(callIdOf(key, { ...parts, tool: 'a', version: 'bc' }));
  });

  test('when the call_id is derived, then it is the same value every version of the Hub derived (receipts stay matchable across upgrades)', () => {
    const fixed = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
    expect(callIdOf(fixed, { tool: 'email_search', version: '2.0.0', inputs: { query: 'from:ana café', max_results: 3 }, requestId: 'req-ñ-1' })).toBe(
      '7b35d0143f041eb27454493ce707c44e',
    );
    expect(callIdOf(fixed, { tool: null, version: null, inputs: undefined, requestId: 'r' })).toBe('f262cfc61bd4f25d4cdfe3314dc4d5b6');
  });
});

describe('call_id of oversized inputs', () => {
  test('when the inputs hold more than 2,000 values, then they normalise to a marker: deterministic, and no sort of every key', () => {
    const huge = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, i]));
    expect(canonicalJson(huge)).toBe('"‹input over 2000 values›"');
    const parts = { tool: 'email_search', version: '2.0.0', inputs: huge, requestId: 'r-9' };
    expect(callIdOf(key, parts)).toBe(callIdOf(key, { ...parts, inputs: { ...huge } }));
    const nested = { a: [Array.from({ length: 2_500 }, (_, i) => i)] };
    expect(canonicalJson(nested)).toBe('"‹input over 2000 values›"');
    expect(canonicalJson({ a: Array.from({ length: 100 }, (_, i) => i) })).toContain('"a":[0,1,2');
  });
});

describe('payload redaction', () => {
  const payload = {
    to: ['ben@acme.example'],
    subject: 'Secret plan',
    body: 'Hello Ben',
    count: 3,
    ok: true,
    nothing: null,
    access_token: 'ya29.abc',
    nested: { refresh_token: '1//x', page_token: 'p', setup_url: 'https://hub.example/integrations/google/connect?token=abc&x=1' },
    messages: [{ snippet: 'preview', id: 'm1' }],
  };
  test('when redacted, then the compact shape stays: strings as length + keyed hash, contents as length only, credentials removed', () => {
    const out = createRedactor('redacted', key)(payload) as Record<string, any>;
    expect(out.to).toEqual({ $array: 1, $each: 'string', $hashes: [expect.stringMatching(/^[0-9a-f]{16}$/)] });
    expect(out.subject).toBe('string(11)');
    expect(out.body).toBe('string(9)');
    expect(out.messages).toEqual({ $array: 1, $each: { snippet: 'string', id: 'string' }, $ids: { id: [expect.stringMatching(/^[0-9a-f]{16}$/)] } });
    expect([out.count, out.ok, out.nothing]).toEqual([3, true, null]);
    expect(out.access_token).toBe(REMOVED);
    expect(out.nested.refresh_token).toBe(REMOVED);
    expect(out.nested.page_token).toBe(REMOVED);
    expect(out.nested.setup_url).toMatch(/^string\(\d+\) #[0-9a-f]{16}$/);
    const text = JSON.stringify(out);
    for (const secret of ['Secret plan', 'Hello Ben', 'ben@acme', 'ya29', '1//x', 'token=abc', 'preview', 'm1']) expect(text).not.toContain(secret);
  });
  test('when two receipts hold the same value, then their hashes match; another key gives another hash', () => {
    const a = createRedactor('redacted', key)({ v: 'same' });
    expect(createRedactor('redacted', key)({ v: 'same' })).toEqual(a);
    expect(createRedactor('redacted', randomBytes(32))({ v: 'same' })).not.toEqual(a);
  });
  test('when full, then values stay but credentials and link tokens still go; when none, nothing is kept', () => {
    const out = createRedactor('full', key)(payload) as Record<string, any>;
    expect(out.subject).toBe('Secret plan');
    expect(out.access_token).toBe(REMOVED);
    expect(out.nested.setup_url).not.toContain('token=abc');
    expect(createRedactor('none', key)(payload)).toBeNull();
  });
  test('when a payload is huge or deep, then it is cut to a bounded marker', () => {
    const big = createRedactor('full', key)({ text: 'x'.repeat(MAX_PAYLOAD_CHARS + 10) });
    expect(JSON.stringify(big).length).toBeLessThan(200);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(JSON.stringify(createRedactor('full', key)(deep))).toContain('too deep');
  });
});

describe('the batch writer', () => {
  const flakyDb = () => {
    let down = false;
    const rows: unknown[] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        rows.push(...params);
        return [];
      },
    } as unknown as Db;
    return { db, rows, setDown: (d: boolean) => (down = d) };
  };
  const insert = async (db: Db, batch: readonly number[]) => {
    await db.query('INSERT', [...batch]);
  };

  test('when the database is away, then rows wait and are written once it is back', async () => {
    const f = flakyDb();
    const w = createBatchWriter<number>({
      db: f.db,
      logger: captureLogs().logger,
      what: 't',
      insert,
      maxQueued: 100,
      batchSize: 10,
      flushIntervalMs: 5,
      retryForMs: 60_000,
    });
    f.setDown(true);
    for (let i = 0; i < 25; i++) w.push(i);
    await new Promise((r) => setTimeout(r, 50));
    expect(f.rows).toEqual([]);
    f.setDown(false);
    await w.drain(5_000);
    expect(f.rows).toEqual([...Array(25).keys()]);
    await w.close();
  });

  test('when the queue is full or rows waited too long, then they are dropped, counted and warned about once', async () => {
    const f = flakyDb();
    const logs = captureLogs();
    const drops: number[] = [];
    let now = 0;
    const w = createBatchWriter<number>({
      db: f.db,
      logger: logs.logger,
      what: 't',
      insert,
      maxQueued: 5,
      batchSize: 10,
      flushIntervalMs: 60_000,
      retryForMs: 1_000,
      onDrop: (n) => drops.push(n),
      now: () => now,
    });
    f.setDown(true);
    for (let i = 0; i < 8; i++) w.push(i);
    expect(drops.reduce((a, b) => a + b, 0)).toBe(3);
    now = 5_000;
    await w.drain(0);
    await w.close(0);
    expect(w.stats()).toMatchObject({ queued: 0, written: 0, dropped: 8 });
    expect(logs.entries().filter((l) => l.msg === 't: rows dropped').length).toBeGreaterThanOrEqual(1);
  });
});

describe('webhook signatures', () => {
  const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  test('when signed with two secrets, then a Standard Webhooks library verifies with either; a changed body or another secret does not', () => {
    const body = '{"id":"e1"}';
    const t = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([SECRET, 'an-operator-secret-of-32-characters!'], 'e1', t, body);
    expect(headers).toEqual({
      'webhook-id': 'e1',
      'webhook-timestamp': String(t),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(new Webhook(SECRET).verify(body, headers)).toEqual({ id: 'e1' });
    expect(new Webhook('an-operator-secret-of-32-characters!', { format: 'raw' }).verify(body, headers)).toEqual({ id: 'e1' });
    expect(() => new Webhook(SECRET).verify(`${body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(body, headers)).toThrow('No matching signature');
  });

  test('when a whsec_ secret is not standard base64 of 24 to 64 bytes, then it is named as unusable', () => {
    expect(secretProblem(SECRET)).toBeNull();
    expect(secretProblem('plain-secret-is-not-judged-here')).toBeNull();
    expect(secretProblem('whsec_abc-_def')).toMatch('standard base64');
    expect(secretProblem(`whsec_${Buffer.alloc(16).toString('base64')}`)).toMatch('16 bytes');
  });
});

describe('webhook targets', () => {
  test.each([
    ['127.0.0.1', true],
    ['10.0.0.8', true],
    ['172.20.1.1', true],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:a00:1', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ])('when the address is %s, then forbidden is %s', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  test('when allowed explicitly, then http and loopback pass; otherwise only https on public hosts', () => {
    expect(targetUrlProblem('http://127.0.0.1:8080/x', true)).toBeNull();
    expect(targetUrlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(targetUrlProblem('https://metadata.google.internal/x', false)).toMatch(/local host name/);
  });

  test('when a name resolves to a loopback address, then the connection’s own lookup refuses it (DNS rebinding included)', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup(false)('localhost', {}, (e) => resolve(e)));
    expect(err?.code).toBe('EHUB_FORBIDDEN_ADDRESS');
    const ok = await new Promise<string>((resolve) => guardedLookup(true)('localhost', {}, (_e, address) => resolve(address as string)));
    expect(isForbiddenAddress(ok)).toBe(true);
  });

  test('when a connection event has no webhook (working hours), then none is made; partial grants are insufficient_scopes', () => {
    const base = { customerId: 'c', userId: null, integration: 'google_calendar' as const, accountEmail: null, actor: null };
    expect(webhookOf({ ...base, kind: 'working_hours_changed' })).toBeNull();
    expect(webhookOf({ ...base, kind: 'reconnected', missingScopes: ['calendar.events'] })).toEqual({
      type: 'connection.insufficient_scopes',
      status: 'insufficient_scopes',
    });
    expect(webhookOf({ ...base, kind: 'reconnected' })).toEqual({ type: 'connection.connected', status: 'connected' });
  });
});
