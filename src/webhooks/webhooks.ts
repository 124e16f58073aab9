import { randomUUID } from 'node:crypto';
import type { ConnectionEvent } from '../audit/connection-events';
import type { WebhookConfig } from '../config';
import type { SetupUrlFor } from '../integrations/setup-url';
import type { Logger } from '../logger';
import { type Db, type Queryable, isDatabaseUnavailable } from '../store/db';
import { postWebhook } from './deliver';
import type { Endpoints } from './endpoints';
import { signedHeaders } from './signature';

export type WebhookEventType = 'connection.connected' | 'connection.insufficient_scopes' | 'connection.expired' | 'connection.disconnected';

/** Which webhook a connection event makes, if any (working hours are audited, not sent). */
export function webhookOf(event: ConnectionEvent): { type: WebhookEventType; status: string } | null {
  switch (event.kind) {
    case 'connected':
    case 'reconnected':
      return event.missingScopes && event.missingScopes.length > 0
        ? { type: 'connection.insufficient_scopes', status: 'insufficient_scopes' }
        : { type: 'connection.connected', status: 'connected' };
    case 'expired':
      return { type: 'connection.expired', status: 'expired' };
    case 'disconnected':
      return { type: 'connection.disconnected', status: 'not_connected' };
    default:
      return null;
  }
}

export interface Webhooks {
  /**
   * Writes the event's outbox rows with `q`: the transaction that makes the connection change, so the change and
   * its webhooks commit together — a crash between the two can lose neither alone. Fails as that transaction does.
   */
  record(q: Queryable, event: ConnectionEvent): Promise<void>;
  /** After a change with recorded events has committed: deliver now, not after an idle back-off. */
  wake(): void;
  /** One dispatcher round: claims due deliveries and sends them; resolves with how many were attempted. */
  deliverDue(): Promise<number>;
  /** Resolves when the round running now (if any) has ended (tests). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const CLAIM_BATCH = 20;
const MAX_BACKOFF_MS = 3_600_000;

interface Claimed {
  id: string;
  event_id: string;
  customer_id: string;
  target: 'hub' | 'customer';
  body: string;
  attempts: number;
}

/**
 * The durable outbox: a connection event becomes one row per receiver (the operator's HUB_WEBHOOK_URL, the
 * customer's own endpoint), delivered by a dispatcher loop on every replica — rows are claimed with FOR UPDATE
 * SKIP LOCKED and a lease, so two replicas never send the same row at once — at least once: a receiver that
 * answers anything but 2xx (or nothing) gets the same event (same id) again after an exponential, jittered
 * backoff, until HUB_WEBHOOK_MAX_ATTEMPTS. Every attempt is logged in webhook_attempts (the admin API shows it).
 *
 * The loop polls every HUB_WEBHOOK_POLL_MS while it finds work, and backs off (doubling, up to IDLE_POLL_MAX_MS)
 * while the outbox is idle: a claim query a second on an idle embedded PGlite cost ~17 ms of the process's CPU
 * per second, billed to whatever requests were running. A change this replica commits wakes it at once, and a
 * failed delivery wakes it when its retry is due; an event another replica recorded and could not deliver
 * (it died) waits at most IDLE_POLL_MAX_MS for this one.
 */
const IDLE_POLL_MAX_MS = 15_000;
export function createWebhooks(deps: { db: Db; logger: Logger; config: WebhookConfig; endpoints: Endpoints; setupUrlFor: SetupUrlFor }): Webhooks {
  const { db, logger, config } = deps;
  let round: Promise<void> | null = null;
  let closed = false;
  let idleMs = config.pollIntervalMs;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  /** Runs a round in `ms` — or sooner, if one is already due sooner. */
  const wakeIn = (ms: number) => {
    if (closed || Date.now() + ms >= timerAt) return;
    clearTimeout(timer);
    timerAt = Date.now() + ms;
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  async function record(q: Queryable, event: ConnectionEvent): Promise<void> {
    const hook = webhookOf(event);
    if (hook === null) return;
    const eventId = randomUUID();
    const body = JSON.stringify({
      id: eventId,
      type: hook.type,
      created_at: new Date().toISOString(),
      data: {
        customer_id: event.customerId,
        user_id: event.userId,
        integration: event.integration,
        account_email: event.accountEmail,
        status: hook.status,
        setup_url: deps.setupUrlFor({ customerId: event.customerId, userId: event.userId, integration: event.integration }),
        ...(event.missingScopes && event.missingScopes.length > 0 ? { missing_scopes: event.missingScopes } : {}),
        // Why the vendor ended the grant (Google's or Microsoft's refusal, as the status endpoint's grant.reason).
        ...(hook.type === 'connection.expired' && typeof event.details?.reason === 'string' ? { reason: event.details.reason } : {}),
      },
    });
    await q.query(
      `INSERT INTO webhook_outbox (event_id, event_type, customer_id, target, body)
       SELECT $1::uuid, $2::text, $3::uuid, t.target, $4::text FROM (VALUES ('hub'), ('customer')) AS t(target)
       WHERE (t.target = 'hub' AND $5::boolean) OR (t.target = 'customer' AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE customer_id = $3::uuid))
       ON CONFLICT DO NOTHING`,
      [eventId, hook.type, event.customerId, body, config.url !== undefined],
    );
  }

  async function targetOf(row: Claimed): Promise<{ url: string; secrets: string[] } | string> {
    if (row.target === 'hub') return config.url === undefined ? 'HUB_WEBHOOK_URL is no longer set' : { url: config.url, secrets: config.secrets };
    const endpoint = await deps.endpoints.get(row.customer_id);
    if (endpoint === null) return 'the customer removed its webhook endpoint';
    return { url: endpoint.url, secrets: await deps.endpoints.secretsOf(endpoint) };
  }

  async function deliver(row: Claimed): Promise<void> {
    const target = await targetOf(row);
    const nowS = Math.floor(Date.now() / 1000);
    const result =
      typeof target === 'string'
        ? { status: null, error: target, durationMs: 0 }
        : await postWebhook(target.url, signedHeaders(target.secrets, row.event_id, nowS, row.body), row.body, config);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const gaveUp = !ok && (row.attempts >= config.maxAttempts || typeof target === 'string');
    const waitMs = Math.min(MAX_BACKOFF_MS, config.retryBaseMs * 2 ** (row.attempts - 1));
    const jittered = Math.round(waitMs / 2 + Math.random() * (waitMs / 2));
    if (!ok && !gaveUp) wakeIn(jittered);
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO webhook_attempts (outbox_id, attempt, at, url, status, error, duration_ms) VALUES ($1, $2, now(), $3, $4, $5, $6)', [
        row.id,
        row.attempts,
        typeof target === 'string' ? '' : target.url,
        result.status,
        ok ? null : (result.error ?? `HTTP ${result.status}`),
        result.durationMs,
      ]);
      await tx.query(
        `UPDATE webhook_outbox SET lease_until = NULL, state = $2, delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE NULL END,
           next_attempt_at = now() + make_interval(secs => $3::double precision) WHERE id = $1`,
        [row.id, ok ? 'delivered' : gaveUp ? 'failed' : 'pending', jittered / 1000],
      );
    });
    if (!ok)
      logger.warn(
        { event_id: row.event_id, target: row.target, attempt: row.attempts, status: result.status, error: result.error, gave_up: gaveUp },
        'webhook delivery failed',
      );
  }

  async function deliverDue(): Promise<number> {
    const leaseS = Math.ceil(config.timeoutMs / 1000) + 30;
    const rows = await db.query<Claimed>(
      `UPDATE webhook_outbox SET lease_until = now() + make_interval(secs => $1), attempts = attempts + 1
       WHERE id IN (SELECT id FROM webhook_outbox WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
                    ORDER BY next_attempt_at LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
       RETURNING id::text AS id, event_id::text AS event_id, customer_id::text AS customer_id, target, body, attempts`,
      [leaseS],
    );
    await Promise.all(
      rows.map((row) =>
        deliver(row).catch((err: unknown) => logger.warn({ err, event_id: row.event_id }, 'webhook delivery could not be recorded; retried after its lease')),
      ),
    );
    return rows.length;
  }

  function tick() {
    timerAt = Number.POSITIVE_INFINITY;
    if (closed) return;
    if (round !== null) return wakeIn(config.pollIntervalMs);
    round = deliverDue()
      .catch((err: unknown) => {
        if (!isDatabaseUnavailable(err)) logger.error({ err }, 'webhook dispatcher round failed');
        return 0;
      })
      .then((attempted) => {
        idleMs = attempted > 0 ? config.pollIntervalMs : Math.min(idleMs * 2, Math.max(IDLE_POLL_MAX_MS, config.pollIntervalMs));
      })
      .finally(() => {
        round = null;
        wakeIn(idleMs);
      });
  }
  wakeIn(config.pollIntervalMs);

  return {
    record,
    wake() {
      idleMs = config.pollIntervalMs;
      wakeIn(0); // deliver what was just committed now, not after an idle back-off
    },
    deliverDue,
    settled: async () => {
      await round;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await round;
    },
  };
}
