import { createSecretKey, randomBytes } from 'node:crypto';
import { createRedactor } from '../../src/audit/redact';
import { type CallRecord, RECEIPT_COLUMNS, receiptFacts, rowOfFacts } from '../../src/audit/receipts';
import { MAX_SHAPE_CHARS } from '../../src/audit/shape';
import type { Execution } from '../../src/tools/execute';

/**
 * The compact receipt (src/audit/shape.ts): bounded whatever the shape, equal values still matched by hash, and the
 * call_id made from the facts on the receipt thread is the very id the request thread used to make.
 */

const key = randomBytes(32);
const shape = createRedactor('redacted', key);
const size = (v: unknown) => JSON.stringify(v).length;
/** Where each payload sits in a receipt row (its columns' order). */
const COLUMN = { input: RECEIPT_COLUMNS.indexOf('input'), output: RECEIPT_COLUMNS.indexOf('output'), error: RECEIPT_COLUMNS.indexOf('error') };

describe('hostile shapes', () => {
  test('when a payload is deep, wide, a long array or 64 KB of text, then its shape stays within the fixed bound', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const wide = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, `v${i}`]));
    const long = Array.from({ length: 100_000 }, (_, i) => ({ id: `e${i}`, n: i }));
    const mixed = Array.from({ length: 5_000 }, (_, i) => (i % 2 ? { a: i } : [i, `s${i}`, { [`x${i}`]: i }]));
    const longKeys = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${'k'.repeat(5_000)}${i}`, i]));
    const text = { message: 'x'.repeat(64 * 1024) };
    for (const hostile of [deep, wide, long, mixed, longKeys, text, [deep, wide, long]]) {
      const out = shape(hostile);
      expect(size(out)).toBeLessThanOrEqual(MAX_SHAPE_CHARS + 100);
    }
    expect(JSON.stringify(shape(deep))).toContain('too deep');
    expect(shape(wide)).toMatchObject({ $more_keys: 30_000 - 64 });
    expect(shape(long)).toMatchObject({ $array: 100_000, $each: { id: 'string', n: 'number' }, $ids_more: true });
    expect(shape(text)).toEqual({ message: expect.stringMatching(/^string\(65536\) #[0-9a-f]{16}$/) });
  });
});

describe('equality by hash', () => {
  test('when two receipts hold the same value, inside or outside arrays, then their hashes match; another key gives another hash', () => {
    const a = shape({ event_id: 'evt-1', calendars: ['primary', 'ana@acme.example'] }) as Record<string, any>;
    const b = shape({ items: [{ id: 'evt-1' }, { id: 'evt-2' }], calendar: 'primary' }) as Record<string, any>;
    const h = (s: string) => s.split('#')[1];
    expect(b.items.$ids.id).toContain(h(a.event_id));
    expect(a.calendars.$hashes).toContain(h(b.calendar));
    expect(createRedactor('redacted', randomBytes(32))({ v: 'same' })).not.toEqual(shape({ v: 'same' }));
  });
});

const availability = {
  time_zone: 'Europe/Berlin',
  time_min: '2026-11-30T08:00:00+01:00',
  time_max: '2026-12-04T18:00:00+01:00',
  busy_periods: Array.from({ length: 30 }, (_, i) => ({
    start: `2026-12-0${1 + (i % 4)}T${String(8 + (i % 9)).padStart(2, '0')}:00:00+01:00`,
    end: `2026-12-0${1 + (i % 4)}T${String(9 + (i % 9)).padStart(2, '0')}:00:00+01:00`,
    calendar: 'primary',
  })),
  unavailable_calendars: [],
};

const record = (execution: Execution, inputs: unknown): CallRecord => ({
  body: { tool: execution.tool, agent_id: 'a', customer_id: 'c', inputs },
  execution,
  version: execution.tool === null ? null : execution.tool === 'calendar_get_availability' ? '1.0.0' : '2.0.0',
  startedAt: 1_764_000_000_000,
  endedAt: 1_764_000_000_120,
  durationMs: 120,
  ops: [{ operation: 'calendar.freebusy.query', status: 200, ms: 95 }],
  opsOmitted: 0,
  traceId: null,
  principal: { kind: 'secret', fingerprint: '0123456789ab' },
});

describe('receipts made on the receipt thread', () => {
  const fixed = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');

  test('when the call_id is made from the facts, then it is the id the request thread made (the pinned vector)', () => {
    const inputs = { query: 'from:ana café', max_results: 3 };
    const execution: Execution = { ok: true, tool: 'email_search', value: { messages: [] }, requestId: 'req-ñ-1', apiCalls: 1 };
    const facts = receiptFacts(record(execution, inputs), 'redacted');
    const row = JSON.parse(rowOfFacts(facts, createRedactor('redacted', fixed), createSecretKey(fixed))) as unknown[];
    expect(row[0]).toBe('7b35d0143f041eb27454493ce707c44e');
    const refused: Execution = {
      ok: false,
      tool: null,
      requestId: 'r',
      apiCalls: 0,
      refused: true,
      error: { code: 'VALIDATION_ERROR', retryable: false, message: 'x' },
    };
    const none = JSON.parse(rowOfFacts(receiptFacts(record(refused, undefined), 'redacted'), createRedactor('redacted', fixed), createSecretKey(fixed)));
    expect(none[0]).toBe('f262cfc61bd4f25d4cdfe3314dc4d5b6');
  });

  test('when a real availability call is recorded, then its receipt is at most 1 KB and keeps the shape and the calendar hash', () => {
    const inputs = { calendars: ['primary'], time_min: availability.time_min, time_max: availability.time_max, time_zone: 'Europe/Berlin' };
    const execution: Execution = { ok: true, tool: 'calendar_get_availability', value: availability, requestId: 'req-42', apiCalls: 1 };
    const row = rowOfFacts(receiptFacts(record(execution, inputs), 'redacted'), shape, createSecretKey(key));
    expect(Buffer.byteLength(row)).toBeLessThanOrEqual(1_024);
    const output = (JSON.parse(row) as unknown[])[COLUMN.output] as Record<string, any>;
    expect(output.busy_periods).toMatchObject({ $array: 30, $each: { start: 'string', end: 'string', calendar: 'string' } });
    expect(output.busy_periods.$ids.calendar).toHaveLength(1);
    expect(row).not.toContain('2026-12');
  });
});

describe("a result's hashes", () => {
  test('when a result holds ids, a repeat of an input and strings of its own, then only the ids and the repeat keep a hash', () => {
    const inputs = { title: 'Planning', start: '2027-03-01T10:00:00-05:00', end: '2027-03-01T11:00:00-05:00' };
    const value = { event_id: 'evt123', status: 'confirmed', start: inputs.start, html_link: 'https://calendar.example/evt123' };
    const execution: Execution = { ok: true, tool: 'calendar_create_event', value, requestId: 'r-hash', apiCalls: 1 };
    const row = JSON.parse(rowOfFacts(receiptFacts(record(execution, inputs), 'redacted'), shape, createSecretKey(key))) as unknown[];
    const [input, output] = [row[COLUMN.input] as Record<string, string>, row[COLUMN.output] as Record<string, string>];
    expect(output.event_id).toMatch(/^string\(6\) #[0-9a-f]{16}$/); // an id: a later call follows it
    expect(output.start).toBe(input.start); // the answer repeats an input: still matched to it
    expect(output).toMatchObject({ status: 'string(9)', html_link: `string(${value.html_link.length})` }); // the answer's own words
    expect(input.end).toMatch(/^string\(25\) #[0-9a-f]{16}$/); // every input string keeps its hash
  });
});

describe("an error's Hub-written words", () => {
  test('when a call fails validation or a policy, then the issue paths, their messages and the rule stay in clear; values stay redacted', () => {
    const error = {
      code: 'POLICY_DENIED' as const,
      retryable: false,
      message: 'Recipient ben@evil.example is outside the allowed domains',
      details: { rule: 'email_allowed_recipient_domains', recipients: ['ben@evil.example'], issues: [{ path: 'inputs.to[0]', message: 'not allowed' }] },
    };
    const execution: Execution = { ok: false, tool: 'email_send', requestId: 'r-1', apiCalls: 0, error };
    const row = JSON.parse(rowOfFacts(receiptFacts(record(execution, { to: ['ben@evil.example'] }), 'redacted'), shape, createSecretKey(key))) as unknown[];
    const kept = row[COLUMN.error] as { message: string; details: Record<string, unknown> };
    expect(kept.message).toMatch(/^Recipient string\(16\) #[0-9a-f]{16} is outside the allowed domains$/); // the Hub's words, the address redacted
    expect(kept.details).toMatchObject({ rule: 'email_allowed_recipient_domains', issues: [{ path: 'inputs.to[0]', message: 'not allowed' }] });
    expect(JSON.stringify(row)).not.toContain('evil.example');
  });
});

describe('the whole receipt', () => {
  test('when inputs, result, error message and details are all hostile, then the row stays within a fixed bound and keeps no value', () => {
    const wide = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, `secret-value-${i}`]));
    const long = Array.from({ length: 100_000 }, (_, i) => ({ id: `e${i}`, body: `secret-value-${i}`, nested: [[[{ x: i }]]] }));
    let deep: unknown = 'secret-value-deep';
    for (let i = 0; i < 5_000; i++) deep = [deep];
    const message = Array.from({ length: 1_000 }, (_, i) => `"secret-value-${i}"`).join(' ');
    const error = { code: 'EXTERNAL_API_ERROR' as const, retryable: true, message, details: { deep, long } };
    const execution: Execution = { ok: false, tool: 'calendar_get_availability', requestId: 'r-hostile', apiCalls: 100, error };
    const facts = receiptFacts(
      {
        ...record(execution, { wide, long, deep }),
        ops: Array.from({ length: 100 }, () => ({ operation: 'calendar.freebusy.query', status: 503, ms: 1 })),
        opsOmitted: 900,
      },
      'redacted',
    );
    const row = rowOfFacts(facts, shape, createSecretKey(key));
    // Each payload within MAX_SHAPE_CHARS, the message cut at 2,000 characters before redaction, 100 operations listed.
    expect(Buffer.byteLength(row)).toBeLessThanOrEqual(32 * 1024);
    expect(row).not.toContain('secret-value');
    const ok: Execution = { ok: true, tool: 'calendar_get_availability', requestId: 'r-hostile', apiCalls: 1, value: { wide, long, deep } };
    expect(Buffer.byteLength(rowOfFacts(receiptFacts(record(ok, { wide, long, deep }), 'redacted'), shape, createSecretKey(key)))).toBeLessThanOrEqual(
      2 * MAX_SHAPE_CHARS + 1_024,
    );
  });
});
