import { z } from 'zod';
import { type EnvOf, integer, onOff, optionalString } from './variables';

/** What audit receipts keep of inputs and results (src/audit/redact.ts applies it). */
export type PayloadMode = 'none' | 'redacted' | 'full';

export interface AuditConfig {
  /** HUB_AUDIT: off records nothing (receipts and connection events); the purge of older rows still runs. */
  enabled: boolean;
  payloads: PayloadMode;
  retentionDays: number;
  /** Rows held in memory while waiting for the database; beyond it new rows are dropped (counted). */
  bufferMax: number;
  flushIntervalMs: number;
  /** How long queued rows wait out a database outage before they are dropped. */
  retryForS: number;
  /** How often the retention purge runs (each run deletes in small batches). */
  purgeIntervalS: number;
  /** HUB_AUDIT_THREAD: on PostgreSQL, receipts are redacted and written by a thread of their own (receipt-writer.ts). */
  thread: boolean;
}

export const auditVariables = {
  HUB_AUDIT: onOff(true).describe(
    'The audit trail: a receipt per execute call and a row per connection event. `off` records none (the retention purge still runs); for measuring its cost, or a Hub whose calls must leave no record.',
  ),
  HUB_AUDIT_PAYLOADS: optionalString
    .pipe(z.enum(['none', 'redacted', 'full']).optional())
    .transform((s) => s ?? 'redacted')
    .describe(
      'What audit receipts keep of inputs and results: `none`, `redacted` (the compact shape: keys, types, string lengths, keyed hashes of the values equality matters for, arrays summarised; message subjects and bodies as length only) or `full`; tokens never, and every receipt has a fixed bound.',
    ),
  HUB_AUDIT_RETENTION_DAYS: integer(30, 1, 3650).describe(
    'Days audit receipts, connection events and webhook deliveries are kept; older rows are purged in small batches.',
  ),
  HUB_AUDIT_BUFFER_MAX: integer(10_000, 100, 1_000_000).describe(
    'Audit rows one replica holds in memory while the database is slow or away; beyond it new rows are dropped (counted, warned).',
  ),
  HUB_AUDIT_FLUSH_MS: integer(250, 10, 60_000).describe('How often queued audit rows are written (a full batch of 200 is written at once).'),
  HUB_AUDIT_RETRY_S: integer(300, 1, 86_400).describe('How long queued audit rows wait out a database outage (retried with backoff) before they are dropped.'),
  HUB_AUDIT_PURGE_INTERVAL_S: integer(3600, 10, 86_400).describe('How often the retention purge runs.'),
  HUB_AUDIT_THREAD: onOff(true).describe(
    'Receipts are redacted, serialised and written by a thread of their own, off the request thread — on PostgreSQL, and on embedded PGlite running on its thread (`off`: on the request thread).',
  ),
};

export type AuditEnv = EnvOf<typeof auditVariables>;

export const auditSection = {
  variables: auditVariables,
  load: (e: AuditEnv): { audit: AuditConfig } => ({
    audit: {
      enabled: e.HUB_AUDIT,
      payloads: e.HUB_AUDIT_PAYLOADS,
      retentionDays: e.HUB_AUDIT_RETENTION_DAYS,
      bufferMax: e.HUB_AUDIT_BUFFER_MAX,
      flushIntervalMs: e.HUB_AUDIT_FLUSH_MS,
      retryForS: e.HUB_AUDIT_RETRY_S,
      purgeIntervalS: e.HUB_AUDIT_PURGE_INTERVAL_S,
      thread: e.HUB_AUDIT_THREAD,
    },
  }),
};
