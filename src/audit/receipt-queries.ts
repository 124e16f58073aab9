import type { Queryable } from '../store/db';

/**
 * A receipt as the admin API shows it: the call's envelope fields plus who called and what the vendor did. A field
 * whose value is null is left out (an absent field means null), and `replay` is left out unless true: most calls
 * have no end user, conversation, trace or error, and the names of what they lack were a tenth of a receipt.
 */
export interface ReceiptView {
  call_id: string;
  tool?: string;
  version?: string;
  customer_id?: string;
  user_id?: string;
  agent_id?: string;
  conversation_id?: string;
  request_id: string;
  trace_id?: string;
  t_start: string;
  t_end: string;
  duration_ms: number;
  outcome: string;
  /** Absent for a success. */
  retryable?: boolean;
  api_calls: number;
  /** The integration that answered (google_gmail, outlook_mail…); absent when the call reached for none, and on older receipts. */
  integration?: string;
  /**
   * The vendor's operations in order with their statuses: Google API methods or Microsoft Graph operations. The
   * name is the contract's, kept for compatibility from when Google was the only vendor.
   */
  google_operations: unknown[];
  /** Present (true) only for the stored answer of an earlier call with the same request_id. */
  replay?: true;
  payload_mode: string;
  /** The credential that made the call: `key:<service key id>` or `secret:<fingerprint>`; absent on older receipts. */
  principal?: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
}

interface ReceiptRow {
  id: string;
  call_id: string;
  tool: string | null;
  version: string | null;
  customer_id: string | null;
  user_id: string | null;
  agent_id: string | null;
  conversation_id: string | null;
  request_id: string;
  trace_id: string | null;
  started_at: Date;
  ended_at: Date;
  duration_ms: number;
  outcome: string;
  retryable: boolean | null;
  api_calls: number;
  google_ops: unknown;
  replay: boolean;
  payload_mode: string;
  principal: string | null;
  integration: string | null;
  input: unknown;
  output: unknown;
  error: unknown;
}

const COLUMNS =
  'id::text AS id, call_id, tool, version, customer_id::text AS customer_id, user_id, agent_id::text AS agent_id, conversation_id, request_id, trace_id, ' +
  'started_at, ended_at, duration_ms, outcome, retryable, api_calls, google_ops, replay, payload_mode, principal, integration, input, output, error';

const parsed = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v); // jsonb: objects from pg, text from some drivers

/** The view's fields in order, each left out when null (rows written before this rule hold the same NULLs). */
export function toView(r: ReceiptRow): ReceiptView {
  const v: Record<string, unknown> = { call_id: r.call_id };
  const put = (k: keyof ReceiptView, value: unknown) => {
    if (value !== null && value !== undefined) v[k] = value;
  };
  put('tool', r.tool);
  put('version', r.version);
  put('customer_id', r.customer_id);
  put('user_id', r.user_id);
  put('agent_id', r.agent_id);
  put('conversation_id', r.conversation_id);
  v.request_id = r.request_id;
  put('trace_id', r.trace_id);
  v.t_start = new Date(r.started_at).toISOString();
  v.t_end = new Date(r.ended_at).toISOString();
  v.duration_ms = r.duration_ms;
  v.outcome = r.outcome;
  put('retryable', r.retryable);
  v.api_calls = r.api_calls;
  put('integration', r.integration);
  v.google_operations = (parsed(r.google_ops) as unknown[] | null) ?? [];
  if (r.replay) v.replay = true;
  v.payload_mode = r.payload_mode;
  put('principal', r.principal);
  put('input', parsed(r.input));
  put('output', parsed(r.output));
  put('error', parsed(r.error));
  return v as unknown as ReceiptView;
}

export interface ReceiptFilter {
  agentId?: string;
  userId?: string;
  conversationId?: string;
  tool?: string;
  /** 'ok', 'error' (any failure) or one error code. */
  outcome?: string;
  from?: Date;
  to?: Date;
}

/** Keyset cursor: the (t_start, id) of the last receipt of a page — stable whatever is inserted meanwhile. */
export interface Cursor {
  t: string;
  id: string;
}

export const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

export function decodeCursor(raw: string): Cursor | null {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof c.t !== 'string' || Number.isNaN(Date.parse(c.t)) || typeof c.id !== 'string' || !/^\d{1,19}$/.test(c.id)) return null;
    return { t: c.t, id: c.id };
  } catch {
    return null;
  }
}

/**
 * Whose receipts: a customer's, or those recorded against a credential alone (`principal`, with no customer: a key's
 * calls for customers outside its scope, and bodies naming no customer readably).
 */
export type ReceiptOwner = { customerId: string } | { principal: string };

/** A customer's (or a credential's) receipts, newest first: one page and the cursor of the next (null when this is the last). */
export async function listReceipts(db: Queryable, owner: ReceiptOwner | string, filter: ReceiptFilter, page: { limit: number; cursor: Cursor | null }) {
  const who = typeof owner === 'string' ? { customerId: owner } : owner;
  const params: unknown[] = ['customerId' in who ? who.customerId : who.principal];
  const where = ['customerId' in who ? 'customer_id = $1' : 'principal = $1 AND customer_id IS NULL'];
  const add = (sql: (n: string) => string, value: unknown) => where.push(sql(`$${params.push(value)}`));
  if (filter.agentId !== undefined) add((p) => `agent_id = ${p}`, filter.agentId);
  if (filter.userId !== undefined) add((p) => `user_id = ${p}`, filter.userId);
  if (filter.conversationId !== undefined) add((p) => `conversation_id = ${p}`, filter.conversationId);
  if (filter.tool !== undefined) add((p) => `tool = ${p}`, filter.tool);
  if (filter.outcome === 'error') where.push("outcome <> 'ok'");
  else if (filter.outcome !== undefined) add((p) => `outcome = ${p}`, filter.outcome);
  if (filter.from !== undefined) add((p) => `started_at >= ${p}`, filter.from);
  if (filter.to !== undefined) add((p) => `started_at < ${p}`, filter.to);
  if (page.cursor !== null) {
    const t = `$${params.push(new Date(page.cursor.t))}`;
    const id = `$${params.push(page.cursor.id)}`;
    where.push(`(started_at, id) < (${t}::timestamptz, ${id}::bigint)`);
  }
  const rows = await db.query<ReceiptRow>(
    `SELECT ${COLUMNS} FROM audit_receipts WHERE ${where.join(' AND ')} ORDER BY started_at DESC, id DESC LIMIT ${page.limit + 1}`,
    params,
  );
  const more = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  const last = pageRows.at(-1);
  return { receipts: pageRows.map(toView), nextCursor: more && last ? encodeCursor({ t: new Date(last.started_at).toISOString(), id: last.id }) : null };
}

/** Every receipt of one call_id (a call, its retries and replays), oldest first. */
export async function receiptsOfCall(db: Queryable, customerId: string, callId: string, max: number): Promise<ReceiptView[]> {
  const rows = await db.query<ReceiptRow>(
    `SELECT ${COLUMNS} FROM audit_receipts WHERE customer_id = $1 AND call_id = $2 ORDER BY started_at, id LIMIT ${max}`,
    [customerId, callId],
  );
  return rows.map(toView);
}

/** A conversation's receipts in the order they were made, at most `max` (+1 to tell whether there are more). */
export async function receiptsOfConversation(db: Queryable, customerId: string, conversationId: string, max: number) {
  const rows = await db.query<ReceiptRow>(
    `SELECT ${COLUMNS} FROM audit_receipts WHERE customer_id = $1 AND conversation_id = $2 ORDER BY started_at, id LIMIT ${max + 1}`,
    [customerId, conversationId],
  );
  return { receipts: rows.slice(0, max).map(toView), truncated: rows.length > max };
}
