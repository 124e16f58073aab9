import type { Tracer } from '@opentelemetry/api';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { type Access, createAccess } from './access';
import type { AccessEvents } from './access/access-events';
import { type Audit, createAudit } from './audit/trail';
import type { ConnectionEvent, OnConnectionEvent } from './audit/connection-events';
import { adminJwtAuth, createAdminTokenVerifier } from './auth/admin-jwt';
import { adminApiAuth } from './auth/admin-session-auth';
import { serviceSecretAuth } from './auth/service-secret';
import type { Config } from './config';
import { type ConsoleAssets, loadConsoleAssets } from './console/assets';
import { createSessions } from './console/sessions';
import { createSignInLinks } from './console/sign-in-links';
import { ERROR_CODES } from './core/errors';
import { hubExpress, withErrorAnswers } from './http/hub-express';
import type { Lifecycle } from './http/request-context';
import { createConnectCompletions } from './integrations/connect-completions';
import { createConnectFlow } from './integrations/connect-flow';
import { createConnectLinks } from './integrations/connect-links';
import { type ConnectionResolver, createConnectionResolver } from './integrations/connections';
import { createCapabilityDefaults } from './store/capability-defaults';
import type { CredentialChange, CredentialEvents } from './integrations/credential-events';
import { createDisconnect } from './integrations/disconnect';
import { createGoogleClients } from './providers/google/clients';
import { createConnecting } from './providers/connecting';
import { grantPolicyFor } from './integrations/grant-health';
import { createGrantReuse } from './integrations/grant-reuse';
import { createOAuthStates } from './integrations/oauth-states';
import { createSetupUrlFor } from './integrations/setup-url';
import { tokenRefresherFor } from './integrations/token-refresh';
import type { Logger } from './logger';
import { type HubMetrics, createMetrics, noMetrics } from './observability/metrics';
import { createTracing } from './observability/tracing';
import { type IdempotencyGuard, createIdempotencyGuard } from './protection/idempotency';
import { createPostgresIdempotencyStore } from './protection/idempotency-postgres';
import { createRedisIdempotencyStore } from './protection/idempotency-redis';
import { createRateLimiter } from './protection/rate-limit';
import { mountAdminApi } from './routes/admin/mount';
import { mountConnectFlow } from './routes/connect/mount';
import { mountConsole } from './routes/console/mount';
import { mountInternalApi } from './routes/internal/mount';
import { createMetricsApp, mountMetrics, mountOperations } from './routes/operations/mount';
import { countConnections } from './store/connection-counts';
import { type CredentialStore, createCredentialStore } from './store/credential-store';
import { createCustomerDirectory } from './store/customer-directory';
import type { Db, Queryable } from './store/db';
import { createHubSecrets } from './store/hub-secrets';
import { type KeyRotation, createKeyRotation } from './store/key-rotation';
import { createRedisHealth } from './store/redis-health';
import { createTokenCipher } from './store/token-cipher';
import { webhookBacklog } from './store/webhook-backlog';
import { BUILT_IN_TOOLS } from './tools';
import { type EventIds, createEventIds } from './tools/calendar/event-id';
import { buildCatalog } from './tools/catalog';
import { type HtmlConverter, createHtmlConverter } from './tools/email/html-text';
import type { RecordedExecuteDeps } from './tools/recorded-execute';
import { type ToolRegistry, createToolRegistry } from './tools/registry';
import { createToolCache } from './tools/tool-cache';
import { createMemoryRecentWrites } from './store/recent-writes-memory';
import { createRedisRecentWrites } from './store/recent-writes-redis';
import type { AnyTool } from './tools/types';
import { createProviderPorts, createUpstream } from './providers';
import { createEndpoints } from './webhooks/endpoints';
import { type Webhooks, createWebhooks } from './webhooks/webhooks';

export interface AppDeps {
  config: Config;
  logger: Logger;
  db: Db;
  /** Shared state across replicas (rate limits, idempotency records); null = this process only. */
  redis?: Redis | null;
  lifecycle?: Lifecycle;
  /** Connection changes shared with the other replicas (Redis pub/sub); absent = this process only. */
  credentialEvents?: CredentialEvents;
  /** Service key and policy changes shared with the other replicas (Redis pub/sub); absent = this process only. */
  accessEvents?: AccessEvents;
  /** What tools take as the current time (Date.now by default; tests fix it). */
  now?: () => number;
  /** Defaults to every built-in tool; tests may add their own. */
  tools?: readonly AnyTool[];
  /** Spans go here: the OpenTelemetry SDK's tracer when main.ts started it, a test's in-memory one; absent = tracing off. */
  tracer?: Tracer;
  /** Audit rows dropped (database away too long, buffer full): for the drop metric. */
  onAuditDrop?: (n: number) => void;
  /** The admin console's browser files; read from dist/console when absent (null: not built). */
  consoleAssets?: ConsoleAssets | null;
}

export interface HubApp {
  app: Express;
  store: CredentialStore;
  keys: KeyRotation;
  tools: ToolRegistry;
  lifecycle: Lifecycle;
  /** Credential lookups for tool calls (cached briefly); `invalidate` after a connection changes. */
  connections: ConnectionResolver;
  /** The HTML conversion worker pool: `close()` it when the Hub stops. */
  html: HtmlConverter;
  /** The event ids calendar creates derive (benchmarks and tests re-create a crash with them). */
  eventIds: EventIds;
  /** Write outcomes an outage kept in memory: `drain()` them when the Hub stops. */
  idempotency: IdempotencyGuard;
  metrics: HubMetrics;
  /** Serves /metrics alone, for its own listener (HUB_METRICS_PORT); absent when /metrics is on `app` or off. */
  metricsApp?: Express;
  /** The audit trail's writer: `ready()` before serving, `close()` (flushes) when the Hub stops. */
  audit: Audit;
  /** The webhook outbox and its dispatcher: `close()` when the Hub stops. */
  webhooks: Webhooks;
  /** Service keys and policies: `close()` it when the Hub stops (writes the keys' last-use times). */
  access: Access;
}

/** Builds the whole Hub from its parsed configuration and open connections — the only place things are wired. */
export function createApp(deps: AppDeps): HubApp {
  const { config, logger, db } = deps;
  const lifecycle = deps.lifecycle ?? { shuttingDown: false };
  const cipher = createTokenCipher(config.encryptionKeys);
  const store = createCredentialStore(db, cipher);
  const connectLinks = createConnectLinks({
    publicUrl: config.publicUrl,
    encryptionKeys: config.encryptionKeys,
    ttlS: { admin: config.connect.linkTtlS, setup: config.connect.setupUrlTtlS },
  });
  const setupUrlFor = createSetupUrlFor(connectLinks);
  const tools = createToolRegistry(deps.tools ?? BUILT_IN_TOOLS);
  const obs = config.observability;
  const metrics = obs.metrics ? createMetrics({ knownTools: tools.names() }) : noMetrics;
  const tracing = createTracing(deps.tracer);
  const secrets = createHubSecrets(db, cipher, logger);
  // What happens to connections: audited, and sent to the webhook receivers (both in the background).
  const onAuditDrop = (n: number) => {
    metrics.auditDropped(n);
    deps.onAuditDrop?.(n);
  };
  const audit = createAudit({ db, logger, secrets, config: config.audit, onDrop: onAuditDrop });
  const endpoints = createEndpoints(db, secrets);
  const webhooks = createWebhooks({ db, logger, config: config.webhooks, endpoints, setupUrlFor });
  // A connection change commits with its audit row and webhook outbox rows (`record`, in the change's own
  // transaction); once it has, the dispatcher is woken to deliver them.
  const onConnectionEvent: OnConnectionEvent = Object.assign(() => webhooks.wake(), {
    record: async (tx: Queryable, event: ConnectionEvent) => {
      await audit.recordConnectionEvent(tx, event);
      await webhooks.record(tx, event);
    },
  });
  const google = createGoogleClients(config.google);
  // Each provider's OAuth (connect, refresh, revoke): what src/integrations reaches a vendor through.
  const connecting = createConnecting({ config, google, logger });
  const capabilityDefaults = createCapabilityDefaults(db);
  const refresher = tokenRefresherFor(config, connecting, store, deps.redis ?? null, logger, { metrics, tracing }, onConnectionEvent);
  const connections = createConnectionResolver({
    store,
    defaults: capabilityDefaults,
    setupUrlFor,
    logger,
    refresher,
    cacheTtlMs: config.tokens.credentialCacheTtlMs,
    deadlineMs: config.upstream.toolDeadlineMs,
  });
  // A connection was replaced or removed: forget it here, and tell the other replicas to do the same.
  const credentialChanged = (change: CredentialChange) => {
    connections.invalidate(change);
    deps.credentialEvents?.publish(change);
  };
  deps.credentialEvents?.onRemoteChange((change) => connections.invalidate(change));
  const catalog = buildCatalog(tools);
  // A breaker around the client: a Redis that stops answering is noticed within one short charge (or a heartbeat).
  const redis = deps.redis ? { client: deps.redis, health: createRedisHealth(deps.redis, { logger, probeIntervalMs: config.redisProbeIntervalMs }) } : null;
  const rateLimiter = createRateLimiter(config.rateLimit, redis, logger);
  // Redis when configured, so every replica sees the same records; else the database every replica shares.
  const idempotencyStore = redis
    ? createRedisIdempotencyStore(redis.client, { ttlS: config.idempotency.ttlS, available: redis.health.available })
    : createPostgresIdempotencyStore(db, {
        ttlS: config.idempotency.ttlS,
        // Embedded PGlite: one process holds its data directory, so this store is the table's only writer.
        ...(db.kind === 'pglite' ? { soleWriter: { logger } } : {}),
      });
  const idempotency = createIdempotencyGuard(idempotencyStore, { leaseMs: config.upstream.toolDeadlineMs + 2_000, ttlS: config.idempotency.ttlS, logger });
  const upstream = createUpstream(config.upstream, config.microsoft.mailboxLimits, logger, { redis, metrics, tracing });
  metrics.setSources({
    circuits: () => upstream.circuits(),
    connectionCounts: () => countConnections(db),
    connectionsTtlMs: obs.connectionsTtlMs,
    unrecordedOutcomes: () => idempotency.unrecorded(),
    dependencies: async () => ({
      database: await db.ping(1_000).then(
        () => true,
        () => false,
      ),
      ...(redis ? { redis: redis.health.available() } : {}),
    }),
    webhookBacklog: () => webhookBacklog(db),
    ...(redis ? { redis: () => ({ state: redis.health.state(), ...redis.health.stats() }) } : {}),
  });
  const html = createHtmlConverter(config.html); // its workers start on the first HTML mail
  const access = createAccess({
    db,
    settings: { ...config.access, redisTimeoutMs: config.rateLimit.redisTimeoutMs },
    redis,
    logger,
    ...(deps.accessEvents ? { events: deps.accessEvents } : {}),
  });
  const eventIds = createEventIds(secrets, logger);
  const grants = grantPolicyFor(config.google);
  const execute: RecordedExecuteDeps = {
    tools,
    connections,
    logger,
    rateLimiter,
    idempotency,
    ports: createProviderPorts({ google, microsoft: { graphUrl: config.microsoft.graphUrl } }),
    upstream,
    deadlineMs: config.upstream.toolDeadlineMs,
    settings: { ...config.tools, eventIds },
    cache: createToolCache(),
    // What adapters absorb of their vendor's lag after the Hub's own writes: in Redis when configured, so the
    // replica answering the next call sees them too; else this process's memory.
    recent: redis ? createRedisRecentWrites(redis, { timeoutMs: config.rateLimit.redisTimeoutMs, logger }) : createMemoryRecentWrites(),
    html,
    metrics,
    tracing,
    ...(config.audit.enabled ? { audit } : {}),
    policyGuard: access.policyGuard,
    ...(deps.now ? { now: deps.now } : {}),
  };
  const sessions = createSessions(db, { idleS: config.console.idleTimeoutS, maxS: config.console.sessionMaxS });
  const disconnect = createDisconnect({
    store,
    connecting,
    defaults: capabilityDefaults,
    timeoutMs: config.upstream.attemptTimeoutMs,
    onCredentialChanged: credentialChanged,
    onConnectionEvent,
  });
  const connectFlow = createConnectFlow({
    links: connectLinks,
    states: createOAuthStates(db, cipher, { perLink: config.connect.maxAttemptsPerLink, perAddress: config.connect.maxAttemptsPerAddress }),
    completions: createConnectCompletions(db, { leaseMs: config.upstream.toolDeadlineMs + 10_000 }),
    connecting,
    defaults: capabilityDefaults,
    reuse: createGrantReuse({ store, refresher, grants, timeoutMs: config.upstream.toolDeadlineMs, logger }),
    store,
    tools,
    returnUrlPrefixes: config.connect.returnUrlPrefixes,
    onCredentialChanged: credentialChanged,
    onConnectionEvent,
    logger,
  });
  const { key } = config.admin;
  const verifyAdminJwt =
    key === null ? null : createAdminTokenVerifier({ key, issuer: config.admin.issuer, audience: config.admin.audience, maxTtlS: config.admin.maxTtlS });
  const secureCookies = config.publicUrl.startsWith('https:');

  const app = hubExpress({ logger, lifecycle });
  app.set('trust proxy', config.trustProxy);
  const shared = { db, store, tools, catalog, setupUrlFor, grants, logger };
  const { refusalHoldMs } = config.rateLimit;
  const serviceAuth = serviceSecretAuth(config.serviceSecrets, access.keys);
  mountInternalApi(app, {
    ...shared,
    auth: serviceAuth,
    execute,
    policies: access.policies,
    defaults: capabilityDefaults,
    refusalHoldMs,
    mcpAllowedOrigins: config.mcp.allowedOrigins,
  });
  mountAdminApi(app, {
    ...shared,
    auth: adminApiAuth(adminJwtAuth(config.admin), sessions, logger),
    access,
    endpoints,
    connectLinks,
    disconnect,
    directory: createCustomerDirectory(db),
    webhooks: config.webhooks,
    returnUrlPrefixes: config.connect.returnUrlPrefixes,
    onCredentialChanged: credentialChanged,
    onConnectionEvent,
    ...(deps.now ? { now: deps.now } : {}),
  });
  mountConnectFlow(app, { flow: connectFlow, secureCookies });
  mountConsole(app, {
    sessions,
    links: createSignInLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys }),
    assets: deps.consoleAssets === undefined ? loadConsoleAssets() : deps.consoleAssets,
    secure: secureCookies,
    origin: new URL(config.publicUrl).origin,
    verifyAdminJwt,
    vocabulary: { tools: [...tools.names()].sort(), errorCodes: ERROR_CODES },
    logger,
  });
  mountOperations(app, { db, redis, lifecycle });
  const scrape = { metrics, token: obs.metricsToken };
  if (obs.metrics && obs.metricsPort === undefined) mountMetrics(app, scrape);
  withErrorAnswers(app, logger);
  const metricsApp = obs.metrics && obs.metricsPort !== undefined ? createMetricsApp({ ...scrape, logger, lifecycle }) : undefined;
  return {
    app,
    store,
    keys: createKeyRotation(db, cipher),
    tools,
    lifecycle,
    connections,
    eventIds,
    html,
    idempotency,
    metrics,
    audit,
    webhooks,
    access,
    ...(metricsApp ? { metricsApp } : {}),
  };
}
