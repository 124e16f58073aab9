import { randomUUID } from 'node:crypto';
import type { HubError } from '../errors';
import { executeRequestSchema, readChargeKey } from '../tools/execute-request';
import type { Execution } from '../tools/execute';
import type { Queryable } from '../store/db';
import { insertRows } from './batch-writer';
import { MAX_INPUT_NODES, type PayloadMode, type Redactor } from './redact';

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

/** The caller's ids as far as the body gives them readably (an invalid body still leaves a receipt). */
export function readCaller(body: unknown): { customerId: string | null; agentId: string | null; userId: string | null; conversationId: string | null; inputs: unknown } {
  const charge = readChargeKey(body);
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const context = (typeof b.context === 'object' && b.context !== null ? b.context : {}) as Record<string, unknown>;
  const shape = executeRequestSchema.shape;
  const customer = shape.customer_id.safeParse(b.customer_id);
  const agent = shape.agent_id.safeParse(b.agent_id);
  const user = shape.user_id.safeParse(b.user_id);
  const conversation = shape.context.unwrap().unwrap().shape.conversation_id.safeParse(context.conversation_id);
  return {
    customerId: charge?.customerId ?? (customer.success ? customer.data.toLowerCase() : null),
    agentId: charge?.agentId ?? (agent.success ? agent.data.toLowerCase() : null),
    userId: user.success ? (user.data ?? null) : null,
    conversationId: conversation.success ? (conversation.data ?? null) : null,
    inputs: b.inputs,
  };
}

export const RECEIPT_COLUMNS = [
  'call_id', 'tool', 'version', 'customer_id', 'user_id', 'agent_id', 'conversation_id', 'request_id', 'trace_id',
  'started_at', 'ended_at', 'duration_ms', 'outcome', 'retryable', 'api_calls', 'google_ops', 'replay',
  'payload_mode', 'input', 'output', 'error', 'receipt_id',
] as const;

export type ReceiptRow = unknown[];

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** The code and retryable are the Hub's own closed vocabulary: kept as they are; message and details follow the mode. */
function errorOf(error: HubError, redact: Redactor) {
  return { code: error.code, retryable: error.retryable, message: redact(error.message), ...(error.details !== undefined ? { details: redact(error.details) } : {}) };
}

/** The row of a receipt, its payloads redacted per the mode: nothing of the call's raw body is kept beyond it. */
export function receiptRow(record: CallRecord, callId: string, mode: PayloadMode, redact: Redactor): ReceiptRow {
  const caller = readCaller(record.body);
  const e = record.execution;
  const ops = record.opsOmitted > 0 ? [...record.ops, { operation: '…', status: `${record.opsOmitted} more attempts not listed`, ms: 0 }] : record.ops;
  return [
    callId,
    e.tool,
    record.version,
    caller.customerId,
    caller.userId,
    caller.agentId,
    caller.conversationId,
    e.requestId,
    record.traceId,
    new Date(record.startedAt),
    new Date(record.endedAt),
    Math.round(record.durationMs),
    e.ok ? 'ok' : e.error.code,
    e.ok ? null : e.error.retryable,
    e.apiCalls,
    JSON.stringify(ops),
    e.replay === true,
    mode,
    json(redact(caller.inputs, MAX_INPUT_NODES)),
    e.ok ? json(redact(e.value)) : null,
    e.ok ? null : json(errorOf(e.error, redact)),
    // Made once per receipt: a batch whose commit the database applied but the connection lost is retried, and
    // the unique receipt_id keeps that retry from writing it twice (ON CONFLICT DO NOTHING).
    randomUUID(),
  ];
}

export const insertReceipts = (db: Queryable, rows: readonly ReceiptRow[]) => insertRows(db, 'audit_receipts', RECEIPT_COLUMNS, rows, 'ON CONFLICT (receipt_id) DO NOTHING');
