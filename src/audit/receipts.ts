import { type KeyObject, randomUUID } from 'node:crypto';
import { mayActFor, principalName, type ServicePrincipal } from '../access/service-keys';
import { callIdOf } from './call-id';
import type { VendorOp } from './vendor-ops';
import { executeRequestSchema, readChargeKey } from '../tools/execute-request';
import type { Execution } from '../tools/execute';
import type { Queryable } from '../store/db';
import { MAX_DEPTH, MAX_INPUT_NODES, type PayloadMode, type Redactor } from './redact';
import { type HashRule, ID_KEY } from './shape';
import { receiptErrorDetails, receiptErrorMessage } from './hub-text';

export type { VendorOp };

/** At most this many vendor attempts are listed per receipt (the count of the rest is kept). */
export const MAX_OPS_PER_RECEIPT = 100;

/** What the execute route knows of a finished call. */
export interface CallRecord {
  body: unknown;
  execution: Execution;
  /** The tool's version when the tool is known. */
  version: string | null;
  startedAt: number;
  endedAt: number;
  durationMs: number;
  ops: readonly VendorOp[];
  opsOmitted: number;
  traceId: string | null;
  /** Who authenticated the call (absent where a test builds the route alone). */
  principal?: ServicePrincipal | undefined;
}

/** The body's `inputs`, whatever they are (an invalid body still leaves a receipt). */
export function inputsOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).inputs : undefined;
}

const conversationIdSchema = executeRequestSchema.shape.context.unwrap().unwrap().shape.conversation_id;

/**
 * The caller's ids for the receipt. The execute use case already read them (`execution.caller`: from the parsed
 * body, or the charge key's checked fields); without it (a body whose caller could not be read), as far as the
 * body gives them readably. A customer the credential may not act for is never named: a key refused for acting
 * outside its scope leaves its receipt under no customer (found by its principal), never in that customer's trail.
 */
export function readCaller(
  body: unknown,
  execution?: Execution,
  principal?: ServicePrincipal,
): { customerId: string | null; agentId: string | null; userId: string | null; conversationId: string | null } {
  const known = execution?.caller;
  if (known?.conversationId !== undefined && mayActFor(principal, known.customerId)) {
    return { customerId: known.customerId, agentId: known.agentId, userId: known.userId, conversationId: known.conversationId };
  }
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const context = (typeof b.context === 'object' && b.context !== null ? b.context : {}) as Record<string, unknown>;
  const conversation = conversationIdSchema.safeParse(context.conversation_id);
  const conversationId = conversation.success ? (conversation.data ?? null) : null;
  const caller = (customerId: string | null, agentId: string | null, userId: string | null) =>
    customerId !== null && mayActFor(principal, customerId)
      ? { customerId, agentId, userId, conversationId }
      : { customerId: null, agentId, userId: null, conversationId: null };
  if (known) return caller(known.customerId, known.agentId, known.userId);
  const charge = readChargeKey(body);
  const shape = executeRequestSchema.shape;
  const customer = shape.customer_id.safeParse(b.customer_id);
  const agent = shape.agent_id.safeParse(b.agent_id);
  const user = shape.user_id.safeParse(b.user_id);
  return caller(
    charge?.customerId ?? (customer.success ? customer.data.toLowerCase() : null),
    charge?.agentId ?? (agent.success ? agent.data.toLowerCase() : null),
    user.success ? (user.data ?? null) : null,
  );
}

export const RECEIPT_COLUMNS = [
  'call_id',
  'tool',
  'version',
  'customer_id',
  'user_id',
  'agent_id',
  'conversation_id',
  'request_id',
  'trace_id',
  'started_at',
  'ended_at',
  'duration_ms',
  'outcome',
  'retryable',
  'api_calls',
  'google_ops',
  'replay',
  'payload_mode',
  'principal',
  'integration',
  'input',
  'output',
  'error',
  'receipt_id',
] as const;

/** Where the payload mode sits in a receipt's facts: `head` holds the columns after call_id, which the receipt thread makes. */
const HEAD_PAYLOAD_MODE = RECEIPT_COLUMNS.indexOf('payload_mode') - 1;

/** A receipt as its JSON array in RECEIPT_COLUMNS order, serialised when recorded (see rowOfFacts). */
export type ReceiptRow = string;

/** A call's error as its receipt keeps it, before redaction: the code and retryable are the Hub's own closed vocabulary. */
export interface ErrorFacts {
  code: string;
  retryable: boolean;
  message: string;
  details?: unknown;
}

/** What a refused call's error keeps: the Hub's own message (cut) and the reason's name, no details. */
const MAX_REFUSED_MESSAGE = 200;
const REASON_KEYS = ['reason', 'rule', 'scope'] as const;

/**
 * What a receipt says, read from the call where it ended: `head`, the plain columns from tool to principal (ids,
 * times, outcome, vendor operations, integration) in RECEIPT_COLUMNS order, the payloads not yet redacted — unless `redacted`
 * says the request thread already did it — and what the call_id is made of, unless the request thread made it
 * (`callId`). Plain data, so it can be handed to the receipt writer's thread (receipt-writer.ts) and made into a
 * row there: the call_id's HMAC and the redaction run there, not on the request thread.
 */
export interface ReceiptFacts {
  callId: string | null;
  head: unknown[];
  inputs: unknown;
  output: unknown;
  error: ErrorFacts | null;
  /** The payloads are already redacted (the request thread bounds the work on oversized ones itself). */
  redacted: boolean;
}

/** Facts on their way to the receipt thread: their JSON (receipt-writer.ts, flat), or the facts themselves. */
export type WaitingFacts = ReceiptFacts | string;
export const unflat = (w: WaitingFacts): ReceiptFacts => (typeof w === 'string' ? (JSON.parse(w) as ReceiptFacts) : w);

/** A refused call keeps no payload at all, and of its error only the Hub's own words: a fixed-size receipt. */
function refusedError(e: ErrorFacts): ErrorFacts {
  const details: Record<string, string> = {};
  const given = (e.details ?? {}) as Record<string, unknown>;
  for (const k of REASON_KEYS) if (typeof given[k] === 'string' && (given[k] as string).length <= 64) details[k] = given[k] as string;
  const message = e.message.length > MAX_REFUSED_MESSAGE ? `${e.message.slice(0, MAX_REFUSED_MESSAGE)}…` : e.message;
  return { code: e.code, retryable: e.retryable, message, ...(Object.keys(details).length > 0 ? { details } : {}) };
}

/** The facts of a receipt: only reads (no hashing, no redaction), cheap enough for the request thread. */
export function receiptFacts(record: CallRecord, mode: PayloadMode): ReceiptFacts {
  const e = record.execution;
  const caller = readCaller(record.body, e, record.principal);
  const ops = record.opsOmitted > 0 ? [...record.ops, { operation: '…', status: `${record.opsOmitted} more attempts not listed`, ms: 0 }] : record.ops;
  const error: ErrorFacts | null = e.ok
    ? null
    : { code: e.error.code, retryable: e.error.retryable, message: e.error.message, ...(e.error.details !== undefined ? { details: e.error.details } : {}) };
  const refused = e.refused === true;
  return {
    callId: null,
    head: [
      e.tool,
      record.version,
      caller.customerId,
      caller.userId,
      caller.agentId,
      caller.conversationId,
      e.requestId,
      record.traceId,
      Math.round(record.startedAt * 1000) / 1000,
      Math.round(record.endedAt * 1000) / 1000,
      Math.round(record.durationMs),
      e.ok ? 'ok' : e.error.code,
      e.ok ? null : e.error.retryable,
      e.apiCalls,
      ops,
      e.replay === true,
      refused ? 'none' : mode,
      record.principal ? principalName(record.principal) : null,
      e.integration ?? null,
    ],
    inputs: inputsOf(record.body),
    output: e.ok ? e.value : undefined,
    error: refused && error ? refusedError(error) : error,
    // A refused call's payloads are none: its inputs stay only as far as its call_id needs them.
    redacted: refused,
  };
}

/** The call_id of the facts (the receipt thread's work), from the same parts the request thread used to hash. */
export function callIdOfFacts(facts: ReceiptFacts, key: KeyObject): string {
  if (facts.callId !== null) return facts.callId;
  return callIdOf(key, {
    tool: facts.head[0] as string | null,
    version: facts.head[1] as string | null,
    inputs: facts.inputs,
    requestId: facts.head[6] as string,
  });
}

/** Validation issues kept in clear (the field's path and the Hub's words about it), bounded. */
const MAX_ISSUES = 10;
const cut = (v: unknown, max: number) => (typeof v === 'string' ? (v.length > max ? `${v.slice(0, max)}…` : v) : null);

/**
 * The Hub's own words in an error's details, kept in clear whatever the mode: the reason, rule and scope names and
 * the validation issues (each field's path and what is wrong with it) — what an admin needs to see why a call
 * failed. Ids and values stay redacted with the rest of the details.
 */
function hubWords(details: unknown): Record<string, unknown> {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return {};
  const d = details as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of REASON_KEYS) if (typeof d[k] === 'string' && (d[k] as string).length <= 64) out[k] = d[k];
  if (Array.isArray(d.issues))
    out.issues = d.issues.slice(0, MAX_ISSUES).map((i: unknown) => {
      const issue = (typeof i === 'object' && i !== null ? i : {}) as Record<string, unknown>;
      return { path: cut(issue.path, 200), message: cut(issue.message, 200) };
    });
  return out;
}

/**
 * The error's code and retryable are the Hub's closed vocabulary; its message keeps the Hub's own words with the
 * customer's data in them redacted, and its details are redacted but for the Hub's words (hub-text.ts, hubWords).
 */
const redactError = (error: ErrorFacts | null, redact: Redactor, mode: PayloadMode): ErrorFacts | null => {
  if (error === null) return null;
  const details = error.details === undefined ? undefined : receiptErrorDetails(error.details, mode, redact);
  const shaped = mode === 'redacted' && typeof details === 'object' && details !== null && !Array.isArray(details);
  return {
    code: error.code,
    retryable: error.retryable,
    message: receiptErrorMessage(error.message, error.details, mode, redact) as string,
    ...(details !== undefined ? { details: shaped ? { ...(details as Record<string, unknown>), ...hubWords(error.details) } : details } : {}),
  };
};

/**
 * Which of a result's strings keep their hash: the ones a replay follows from call to call — ids, calendars,
 * addresses (the rule arrays follow already, shape.ts) — and the ones that repeat a string of the call's inputs (an
 * answer echoing what it was asked stays matchable to it). The rest of an answer (a status, a link, working hours)
 * keeps its length only: its equality with other calls' answers is nothing a replay matches on, and its hash was a
 * fifth of a small receipt. The inputs are walked within the inputs' own budget.
 */
export function answerHashRule(inputs: unknown): HashRule {
  const asked = new Set<string>();
  let budget = MAX_INPUT_NODES;
  const collect = (v: unknown, depth: number): void => {
    if (--budget < 0) return;
    if (typeof v === 'string') asked.add(v);
    else if (typeof v === 'object' && v !== null && depth < MAX_DEPTH)
      for (const k in v) {
        if (budget < 0) return;
        if (Object.hasOwn(v, k)) collect((v as Record<string, unknown>)[k], depth + 1);
      }
  };
  collect(inputs, 0);
  return (s, key) => ID_KEY.test(key) || asked.has(s);
}

/**
 * The facts with their call_id made and their payloads redacted per the mode: nothing of the call's raw body is
 * kept beyond this. For a refused call (`redacted` already, no payload), only the call_id is made.
 */
export function redactFacts(facts: ReceiptFacts, redact: Redactor, key: KeyObject): ReceiptFacts {
  const callId = callIdOfFacts(facts, key);
  if (facts.redacted) return { ...facts, callId, inputs: facts.head[HEAD_PAYLOAD_MODE] === 'none' ? null : facts.inputs };
  return {
    callId,
    head: facts.head,
    inputs: redact(facts.inputs, MAX_INPUT_NODES),
    output: facts.output === undefined ? null : redact(facts.output, undefined, answerHashRule(facts.inputs)),
    error: redactError(facts.error, redact, facts.head[HEAD_PAYLOAD_MODE] as PayloadMode),
    redacted: true,
  };
}

/**
 * The row of a receipt, its payloads redacted per the mode. It is serialised at once, a JSON array in column order
 * (times as epoch milliseconds, payloads as values): a queued receipt is one flat string rather than a tree of
 * objects for the garbage collector to copy while it waits, and a batch is sent as one JSON document
 * (insertReceipts) rather than as 23 parameters a row for the driver to convert.
 */
export function rowOfFacts(facts: ReceiptFacts, redact: Redactor, key: KeyObject): ReceiptRow {
  const r = redactFacts(facts, redact, key);
  return JSON.stringify([
    r.callId,
    ...r.head,
    r.inputs ?? null,
    r.output ?? null,
    r.error,
    // Made once per receipt: a batch whose commit the database applied but the connection lost is retried, and
    // the unique receipt_id keeps that retry from writing it twice (ON CONFLICT DO NOTHING).
    randomUUID(),
  ]);
}

/** Each column read from a row of the batch document (`r`, a jsonb array in RECEIPT_COLUMNS order). */
const RECEIPT_TYPES: Record<(typeof RECEIPT_COLUMNS)[number], 'text' | 'uuid' | 'integer' | 'boolean' | 'time' | 'jsonb'> = {
  call_id: 'text',
  tool: 'text',
  version: 'text',
  customer_id: 'uuid',
  user_id: 'text',
  agent_id: 'uuid',
  conversation_id: 'text',
  request_id: 'text',
  trace_id: 'text',
  started_at: 'time',
  ended_at: 'time',
  duration_ms: 'integer',
  outcome: 'text',
  retryable: 'boolean',
  api_calls: 'integer',
  google_ops: 'jsonb',
  replay: 'boolean',
  payload_mode: 'text',
  principal: 'text',
  integration: 'text',
  input: 'jsonb',
  output: 'jsonb',
  error: 'jsonb',
  receipt_id: 'uuid',
};
const SELECT_FROM_DOCUMENT = RECEIPT_COLUMNS.map((column, i) => {
  const type = RECEIPT_TYPES[column];
  if (type === 'jsonb') return `NULLIF(r->${i}, 'null'::jsonb)`; // a JSON null payload is SQL NULL, as before
  if (type === 'time') return `to_timestamp((r->>${i})::float8 / 1000)`;
  return type === 'text' ? `r->>${i}` : `(r->>${i})::${type}`;
}).join(', ');
const INSERT_RECEIPTS = `INSERT INTO audit_receipts (${RECEIPT_COLUMNS.join(', ')}) SELECT ${SELECT_FROM_DOCUMENT} FROM jsonb_array_elements($1::jsonb) AS r ON CONFLICT (receipt_id) DO NOTHING`;

/**
 * One statement, one parameter: the batch as a JSON array of rows, unpacked by the database. Against a
 * PostgreSQL server the driver's cost per row was ~22 us of the Hub's CPU with 22 parameters a row; one JSON
 * document costs its serialisation (~2 us a row), the unpacking being the database's.
 */
export const insertReceipts = (db: Queryable, rows: readonly ReceiptRow[]) =>
  rows.length === 0 ? Promise.resolve() : db.query(INSERT_RECEIPTS, [`[${rows.join(',')}]`]).then(() => undefined);
