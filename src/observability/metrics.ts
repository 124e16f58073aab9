import { Counter, Gauge, type Metric, Registry, collectDefaultMetrics } from 'prom-client';
import { OFFERED_INTEGRATIONS } from '../integrations/catalog';
import { CounterFamily, HistogramFamily } from './series';

/**
 * The Hub's Prometheus metrics (prom-client, text exposition format), one registry per app — never the library's
 * global one, so two Hubs in one process (tests) count apart.
 *
 * Labels are closed sets only: tool names from the registry (anything else is `(unknown)`), error codes,
 * vendor operations (Google discovery ids, Graph operation names), status classes, limit scopes, integration ids. Never a customer, user or agent
 * id: those are unbounded and belong in the audit trail and the access log.
 *
 * The hot path records through pre-bound series (series.ts: a field increment, no label object, key string or
 * hash per call), looked up in nested maps; the gauges read their sources only when Prometheus scrapes.
 */

export type RefreshResult = 'ok' | 'invalid_grant' | 'transient';
export type CircuitState = 'closed' | 'half_open' | 'open';

export interface MetricSources {
  /** The integration-wide circuit of each integration, as the upstream layer holds it. */
  circuits(): Record<string, CircuitState>;
  /** Connections per integration and status, from the store (read at most once per `connectionsTtlMs`). */
  connectionCounts(): Promise<{ integration: string; status: string; count: number }[]>;
  connectionsTtlMs: number;
  /** Write outcomes answered but not yet in the idempotency store (idempotency-pending.ts). */
  unrecordedOutcomes(): number;
  /** Whether each dependency answers now (`database`, and `redis` when configured): asked at each scrape. */
  dependencies?(): Promise<Record<string, boolean>>;
  /** The webhook outbox's waiting deliveries (read at most once per `connectionsTtlMs`, as the connections). */
  webhookBacklog?(): Promise<{ pending: number; overdueSeconds: number }>;
  /** With REDIS_URL: the Redis breaker's state and its hot-path counts (src/store/redis-health.ts). */
  redis?: () => { state: 'closed' | 'suspect' | 'open'; timedOut: number; shortCircuited: number };
}

export interface HubMetrics {
  enabled: boolean;
  /** One finished tool call: the tool (only names the registry knows), `ok` or its error code, its duration. */
  toolCall(tool: string, outcome: string, seconds: number): void;
  /** One HTTP attempt at Google: operation (discovery id), status class (`2xx`, `4xx`, `network`…), duration. */
  googleRequest(operation: string, statusClass: string, seconds: number): void;
  /** A Google attempt that will be repeated. */
  googleRetry(operation: string): void;
  /**
   * One HTTP attempt at any vendor, for the integration it served: its provider (from the catalog; never the
   * integration id, so the label set stays {google, microsoft, (unknown)}), operation, status class, duration — and a
   * throttled count when the vendor answered 429 (Graph's and Google's "slow down"). Google's attempts also go to
   * hub_google_requests_total (and retries to hub_google_retries_total), which existing dashboards and alerts read.
   */
  vendorRequest(integration: string, operation: string, status: number | undefined, kind: string | undefined, seconds: number): void;
  /** A vendor attempt that will be repeated, by provider and operation. */
  vendorRetry(integration: string, operation: string): void;
  rateLimited(scope: string): void;
  /** A refresh sent to a vendor, by the provider of the connection's integration. */
  tokenRefresh(result: RefreshResult, integration: string): void;
  idempotentReplay(tool: string): void;
  /** Receipts the audit writer had to give up on (wired by the audit trail). */
  auditDropped(n: number): void;
  /** Attaches the scrape-time sources (the app wires them once its parts exist). */
  setSources(sources: MetricSources): void;
  /** The Prometheus text exposition of every metric, and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** Seconds: from an echo (tens of µs) to a call that used its whole deadline. */
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const GOOGLE_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };
const REDIS_BREAKER_VALUE = { closed: 0, suspect: 1, open: 2 } as const;
export const UNKNOWN_TOOL = '(unknown)';
export const UNKNOWN_PROVIDER = '(unknown)';

/** integration id → provider, from the catalog: the provider label's closed set. */
const PROVIDER_OF: ReadonlyMap<string, string> = new Map(OFFERED_INTEGRATIONS.map((i) => [i.id, i.provider]));
export const providerLabel = (integration: string) => PROVIDER_OF.get(integration) ?? UNKNOWN_PROVIDER;

/** Per-label children made once and kept: label sets are closed, so these maps stay small. */
function memo<T>(make: (key: string) => T): (key: string) => T {
  const made = new Map<string, T>();
  return (key) => {
    let child = made.get(key);
    if (child === undefined) {
      child = make(key);
      made.set(key, child);
    }
    return child;
  };
}

/** The statistics are off (HUB_METRICS=off): every recording is a no-op. */
export const noMetrics: HubMetrics = {
  enabled: false,
  toolCall() {},
  googleRequest() {},
  googleRetry() {},
  vendorRequest() {},
  vendorRetry() {},
  rateLimited() {},
  tokenRefresh() {},
  idempotentReplay() {},
  auditDropped() {},
  setSources() {},
  scrape: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};

export function createMetrics(options: { knownTools: readonly string[]; defaultMetrics?: boolean }): HubMetrics {
  const registry = new Registry();
  // Event-loop lag sampled every 100 ms, not prom-client's default 10 ms: the histogram timer's wake-ups cost an idle
  // Hub ~7 ms of CPU a second at 10 ms (measured), and lag worth alerting on lasts far longer than 100 ms.
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const known = new Set(options.knownTools);
  const toolLabel = (tool: string) => (known.has(tool) ? tool : UNKNOWN_TOOL);
  let sources: MetricSources | undefined;

  // The families recorded per call or per vendor attempt (series.ts); prom-client's registry formats them.
  const family = <T extends CounterFamily | HistogramFamily>(f: T): T => {
    registry.registerMetric(f as unknown as Metric);
    return f;
  };
  const calls = family(new CounterFamily('hub_tool_calls_total', 'Tool calls answered, by tool and outcome (ok or the error code).', ['tool', 'outcome']));
  const callSeconds = family(
    new HistogramFamily(
      'hub_tool_call_duration_seconds',
      'Tool call duration as the Hub measured it (request arrival to answer), by tool.',
      ['tool'],
      CALL_BUCKETS,
    ),
  );
  const google = family(
    new CounterFamily('hub_google_requests_total', 'HTTP attempts at Google APIs, by operation and status class (2xx, 4xx, 5xx, network, timeout).', [
      'operation',
      'status_class',
    ]),
  );
  const googleSeconds = family(
    new HistogramFamily('hub_google_request_duration_seconds', 'Duration of one HTTP attempt at Google, by operation.', ['operation'], GOOGLE_BUCKETS),
  );
  const retries = family(new CounterFamily('hub_google_retries_total', 'Google attempts that were retried, by operation.', ['operation']));
  const vendor = family(
    new CounterFamily(
      'hub_vendor_requests_total',
      'HTTP attempts at a vendor (Google, Microsoft Graph), by provider, operation and status class (2xx, 4xx, 5xx, network, timeout).',
      ['provider', 'operation', 'status_class'],
    ),
  );
  const vendorSeconds = family(
    new HistogramFamily(
      'hub_vendor_request_duration_seconds',
      'Duration of one HTTP attempt at a vendor, by provider and operation.',
      ['provider', 'operation'],
      GOOGLE_BUCKETS,
    ),
  );
  const throttled = family(
    new CounterFamily(
      'hub_vendor_throttled_total',
      'Vendor attempts answered 429 (throttled: Graph or Google asking the Hub to slow down), by provider and operation.',
      ['provider', 'operation'],
    ),
  );
  const vendorRetries = family(
    new CounterFamily('hub_vendor_retries_total', 'Vendor attempts that were retried, by provider and operation.', ['provider', 'operation']),
  );
  const limited = family(
    new CounterFamily('hub_rate_limit_rejections_total', "Calls refused by the Hub's own rate limits, by scope (customer, agent, distinct_agents).", ['scope']),
  );
  const refreshes = family(
    new CounterFamily('hub_token_refreshes_total', 'Access-token refreshes sent to a vendor, by provider and result (ok, invalid_grant, transient).', [
      'provider',
      'result',
    ]),
  );
  const replays = family(
    new CounterFamily('hub_idempotent_replays_total', 'Calls answered with the stored answer of an earlier call with the same request_id, by tool.', ['tool']),
  );
  const auditDrops = new Counter({
    name: 'hub_audit_dropped_total',
    help: 'Audit receipts dropped after the database stayed unavailable (the buffer gave up on them).',
    registers: [registry],
  });
  new Gauge({
    name: 'hub_circuit_breaker_state',
    help: 'The integration-wide circuit of this replica, by integration (Google and Outlook alike): 0 closed, 1 half-open, 2 open.',
    labelNames: ['integration'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [integration, state] of Object.entries(sources?.circuits() ?? {})) this.set({ integration }, CIRCUIT_VALUE[state]);
    },
  });
  new Gauge({
    name: 'hub_redis_breaker_state',
    help: "This replica's Redis breaker: 0 closed, 1 suspect (one call waited its budget; a PING decides), 2 open. Absent without Redis.",
    registers: [registry],
    collect() {
      this.reset();
      const redis = sources?.redis?.();
      if (redis) this.set(REDIS_BREAKER_VALUE[redis.state]);
    },
  });
  new Counter({
    name: 'hub_redis_fallbacks_total',
    help: 'Hot-path Redis calls (rate-limit, quota and budget charges) that went on without Redis: `budget` waited their whole budget, `unresponsive` did not wait it out (another call had overrun, or the breaker was open).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      const redis = sources?.redis?.();
      if (!redis) return;
      this.inc({ reason: 'budget' }, redis.timedOut);
      this.inc({ reason: 'unresponsive' }, redis.shortCircuited);
    },
  });
  new Gauge({
    name: 'hub_idempotency_unrecorded_outcomes',
    help: 'Write outcomes this replica answered but has not stored in the idempotency store yet: creates recorded just after their answer, and outcomes kept through a store outage.',
    registers: [registry],
    collect() {
      this.set(sources?.unrecordedOutcomes() ?? 0);
    },
  });
  // The store is asked at most once per TTL, whatever the scrape rate and however many replicas scrape.
  let counted: { at: number; rows: Promise<{ integration: string; status: string; count: number }[]> } | undefined;
  new Gauge({
    name: 'hub_connections',
    help: 'Connections stored, by integration and status (read from the database, cached briefly).',
    labelNames: ['integration', 'status'],
    registers: [registry],
    async collect() {
      if (!sources) return;
      const now = performance.now();
      if (!counted || now - counted.at >= sources.connectionsTtlMs) {
        counted = { at: now, rows: sources.connectionCounts() };
        counted.rows.catch(() => (counted = undefined)); // the database away: ask again at the next scrape
      }
      const rows = await counted.rows.catch(() => []);
      this.reset();
      for (const r of rows) this.set({ integration: r.integration, status: r.status }, r.count);
    },
  });

  new Gauge({
    name: 'hub_dependency_up',
    help: 'Whether this replica reaches a dependency now (1) or not (0), by dependency (database, redis): checked at each scrape.',
    labelNames: ['dependency'],
    registers: [registry],
    async collect() {
      const up = (await sources?.dependencies?.().catch(() => undefined)) ?? {};
      this.reset();
      for (const [dependency, ok] of Object.entries(up)) this.set({ dependency }, ok ? 1 : 0);
    },
  });
  // Like the connections: the outbox is counted at most once per TTL, whatever the scrape rate.
  let backlog: { at: number; value: Promise<{ pending: number; overdueSeconds: number }> } | undefined;
  const readBacklog = async () => {
    if (!sources?.webhookBacklog) return undefined;
    const now = performance.now();
    if (!backlog || now - backlog.at >= sources.connectionsTtlMs) {
      backlog = { at: now, value: sources.webhookBacklog() };
      backlog.value.catch(() => (backlog = undefined));
    }
    return backlog.value.catch(() => undefined);
  };
  new Gauge({
    name: 'hub_webhook_outbox_pending',
    help: 'Webhook deliveries waiting in the outbox, due now or waiting out a retry (read from the database, cached briefly).',
    registers: [registry],
    async collect() {
      const b = await readBacklog();
      if (b) this.set(b.pending);
    },
  });
  new Gauge({
    name: 'hub_webhook_outbox_overdue_seconds',
    help: 'How long the oldest webhook delivery that is due has waited for the dispatcher (0 when none is due).',
    registers: [registry],
    async collect() {
      const b = await readBacklog();
      if (b) this.set(b.overdueSeconds);
    },
  });

  const callChildren = memo((tool) => {
    const seconds = callSeconds.child(tool);
    return memo((outcome) => ({ count: calls.child(tool, outcome), seconds }));
  });
  const googleChildren = memo((operation) => {
    const seconds = googleSeconds.child(operation);
    return memo((statusClass) => ({ count: google.child(operation, statusClass), seconds }));
  });
  const retryChild = memo((operation) => retries.child(operation));
  const limitedChild = memo((scope) => limited.child(scope));
  const refreshChild = memo((provider) => memo((result) => refreshes.child(provider, result)));
  const vendorChildren = memo((provider) =>
    memo((operation) => {
      const seconds = vendorSeconds.child(provider, operation);
      const throttle = throttled.child(provider, operation);
      return { seconds, throttle, byClass: memo((statusClass) => vendor.child(provider, operation, statusClass)) };
    }),
  );
  const vendorRetryChild = memo((provider) => memo((operation) => vendorRetries.child(provider, operation)));
  const replayChild = memo((tool) => replays.child(tool));

  return {
    enabled: true,
    toolCall(tool, outcome, seconds) {
      const c = callChildren(toolLabel(tool))(outcome);
      c.count.inc();
      c.seconds.observe(seconds);
    },
    googleRequest(operation, statusClass, seconds) {
      const c = googleChildren(operation)(statusClass);
      c.count.inc();
      c.seconds.observe(seconds);
    },
    googleRetry: (operation) => retryChild(operation).inc(),
    vendorRequest(integration, operation, status, kind, seconds) {
      const c = vendorChildren(providerLabel(integration))(operation);
      c.byClass(statusClass(status, kind)).inc();
      c.seconds.observe(seconds);
      if (status === 429) c.throttle.inc();
      if (providerLabel(integration) === 'google') {
        const g = googleChildren(operation)(statusClass(status, kind));
        g.count.inc();
        g.seconds.observe(seconds);
      }
    },
    vendorRetry(integration, operation) {
      vendorRetryChild(providerLabel(integration))(operation).inc();
      if (providerLabel(integration) === 'google') retryChild(operation).inc();
    },
    rateLimited: (scope) => limitedChild(scope).inc(),
    tokenRefresh: (result, integration) => refreshChild(providerLabel(integration))(result).inc(),
    idempotentReplay: (tool) => replayChild(toolLabel(tool)).inc(),
    auditDropped: (n) => auditDrops.inc(n),
    setSources(s) {
      sources = s;
    },
    scrape: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/** The status class of one Google attempt: `2xx`…`5xx` when Google answered, else what happened instead. */
export function statusClass(status: number | undefined, kind: string | undefined): string {
  if (status !== undefined && status >= 100 && status < 600) return `${Math.floor(status / 100)}xx`;
  if (kind === 'timeout' || kind === 'network' || kind === 'refused_locally') return kind;
  return 'other';
}
