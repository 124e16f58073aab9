import type { IntegrationId } from '../core/integrations';
import type { Queryable } from '../store/db';
import { insertRows } from './batch-writer';

/**
 * What happened to a connection, for the audit trail (and the webhooks that follow from it). `actor` is the admin
 * token's `sub` when a person did it through the admin API; null when the end user (connect link) or Google (a
 * refused refresh token) did.
 */
export type ConnectionEventKind = 'connected' | 'reconnected' | 'expired' | 'disconnected' | 'working_hours_changed';

export interface ConnectionEvent {
  kind: ConnectionEventKind;
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
  accountEmail: string | null;
  actor: string | null;
  /** Scopes the connection lacks for some tools (connected/reconnected with a partial grant). */
  missingScopes?: readonly string[];
  /** Small, token-free facts: the reason of an expiry, the previous account of a replaced connection… */
  details?: Record<string, unknown>;
}

/**
 * Called once a connection change has committed (a wake-up for the webhook dispatcher). Its `record`, when
 * present, writes what must commit with the change — the audit row and the webhook outbox rows — inside the
 * change's own transaction (`recordWith`), so that a crash between the two cannot lose the event.
 */
export interface OnConnectionEvent {
  (event: ConnectionEvent): void;
  record?: (tx: Queryable, event: ConnectionEvent) => Promise<void>;
}

/**
 * What a credential store write commits with for an event: its audit and outbox rows, when the sink records any.
 * `event` may be made from what the write answered (the updated row), when it names what only the row knows.
 */
export function recordWith<T>(
  sink: OnConnectionEvent | undefined,
  event: ConnectionEvent | ((result: T) => ConnectionEvent),
): ((tx: Queryable, result: T) => Promise<void>) | undefined {
  const record = sink?.record;
  if (!record) return undefined;
  return (tx, result) => record(tx, typeof event === 'function' ? event(result) : event);
}

export const CONNECTION_EVENT_COLUMNS = ['at', 'customer_id', 'user_id', 'integration', 'event', 'account_email', 'actor', 'details'] as const;

export function connectionEventRow(event: ConnectionEvent, at: number): unknown[] {
  const details = { ...event.details, ...(event.missingScopes && event.missingScopes.length > 0 ? { missing_scopes: event.missingScopes } : {}) };
  return [new Date(at), event.customerId, event.userId, event.integration, event.kind, event.accountEmail, event.actor, JSON.stringify(details)];
}

export const insertConnectionEvents = (db: Queryable, rows: readonly unknown[][]) => insertRows(db, 'audit_connection_events', CONNECTION_EVENT_COLUMNS, rows);
