import { randomUUID } from 'node:crypto';
import { executeRequestSchema, readChargeKey } from '../tools/execute-request';
import type { Execution } from '../tools/execute';
import type { Queryable } from '../store/db';
import { MAX_INPUT_NODES, type PayloadMode, type Redactor } from './redact';
import { receiptErrorDetails, receiptErrorMessage } from './hub-text';

/** One attempt at one Google operation within a call, as the receipt lists it. */
export interface GoogleOp {
  operation: string;
  /** Google's HTTP status, or what happened instead: 'timeout', 'network', 'aborted'. */
  status: number | string;
  ms: number;
}

/** At most this many Google attempts are listed per receipt (the count of the rest is kept). */
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
  ops: readonly GoogleOp[];
  opsOmitted: number;
  traceId: string | null;
}

/** The body's `inputs`, whatever they are (an invalid body still leaves a receipt). */
export function inputsOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).inputs : undefined;
}

const conversationIdSchema = executeRequestSchema.shape.context.unwrap().unwrap().shape.conversation_id;

/**
 * The caller's ids for the receipt. The execute use case already read them (`execution.caller`: from the parsed
 * body, or the charge key's checked fields); only the conversation id is read here, with the schema's own check.
 * Without `execution.caller` (a body whose caller could not be read), as far as the body gives them readably.
 */
export function readCaller(
  body: unknown,
  execution?: Execution,
): { customerId: string | null; agentId: string | null; userId: string | null; conversationId: string | null } {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const context = (typeof b.context === 'object' && b.context !== null ? b.context : {}) as Record<string, unknown>;
  const conversation = conversationIdSchema.safeParse(context.conversation_id);
  const conversationId = conversation.success ? (conversation.data ?? null) : null;
  const known = execution?.caller;
  if (known) return { customerId: known.customerId, agentId: known.agentId, userId: known.userId, conversationId };
  const charge = readChargeKey(body);
  const shape = executeRequestSchema.shape;
  const customer = shape.customer_id.safeParse(b.customer_id);
  const agent = shape.agent_id.safeParse(b.agent_id);
  const user = shape.user_id.safeParse(b.user_id);
  return {
    customerId: charge?.customerId ?? (customer.success ? customer.data.toLowerCase() : null),
    agentId: charge?.agentId ?? (agent.success ? agent.data.toLowerCase() : null),
    userId: user.success ? (user.data ?? null) : null,
    conversationId,
  };
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
  'input',
  'output',
  'error',
  'receipt_id',
] as const;

/** A receipt as its JSON array in RECEIPT_COLUMNS order, serialised when recorded (see rowOfFacts). */
export type ReceiptRow = string;

/** A call's error as its receipt keeps it, before redaction: the code and retryable are the Hub's own closed vocabulary. */
export interface ErrorFacts {
  code: string;
  retryable: boolean;
  message: string;
  details?: unknown;
}

/**
 * What a receipt says, read from the call where it ended: `head`, the plain columns from call_id to payload_mode
 * (ids, times, outcome, Google operations) in RECEIPT_COLUMNS order, and the payloads not yet redacted — unless
 * `redacted` says the request thread already did it. Plain data, so it can be handed to the receipt writer's
 * thread (receipt-writer.ts) and made into a row there.
 */
export interface ReceiptFacts {
  head: unknown[];
  inputs: unknown;
  output: unknown;
  error: ErrorFacts | null;
  /** The payloads are already redacted (the request thread bounds the work on oversized ones itself). */
  redacted: boolean;
}

export function receiptFacts(record: CallRecord, callId: string, mode: PayloadMode): ReceiptFacts {
  const caller = readCaller(record.body, record.execution);
  const e = record.execution;
  const ops = record.opsOmitted > 0 ? [...record.ops, { operation: '…', status: `${record.opsOmitted} more attempts not listed`, ms: 0 }] : record.ops;
  return {
    head: [
      callId,
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
      mode,
    ],
    inputs: inputsOf(record.body),
    output: e.ok ? e.value : undefined,
    error: e.ok
      ? null
      : {
          code: e.error.code,
          retryable: e.error.retryable,
          message: e.error.message,
          ...(e.error.details !== undefined ? { details: e.error.details } : {}),
        },
    redacted: false,
  };
}

/** The facts with their payloads redacted per the mode: nothing of the call's raw body is kept beyond this. */
export function redactFacts(facts: ReceiptFacts, redact: Redactor): ReceiptFacts {
  if (facts.redacted) return facts;
  const { error } = facts;
  const mode = facts.head[RECEIPT_COLUMNS.indexOf('payload_mode')] as PayloadMode;
  return {
    head: facts.head,
    inputs: redact(facts.inputs, MAX_INPUT_NODES),
    output: facts.output === undefined ? null : redact(facts.output),
    error:
      error === null
        ? null
        : {
            code: error.code,
            retryable: error.retryable,
            // The Hub's own words in clear, the customer's data in them redacted (hub-text.ts).
            message: receiptErrorMessage(error.message, error.details, mode, redact) as string,
            ...(error.details !== undefined ? { details: receiptErrorDetails(error.details, mode, redact) } : {}),
          },
    redacted: true,
  };
}

/**
 * The row of a receipt, its payloads redacted per the mode. It is serialised at once, a JSON array in column order
 * (times as epoch milliseconds, payloads as values): a queued receipt is one flat string rather than a tree of
 * objects for the garbage collector to copy while it waits, and a batch is sent as one JSON document
 * (insertReceipts) rather than as 22 parameters a row for the driver to convert.
 */
export function rowOfFacts(facts: ReceiptFacts, redact: Redactor): ReceiptRow {
  const r = redactFacts(facts, redact);
  return JSON.stringify([
    ...r.head,
    r.inputs ?? null,
    r.output,
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
