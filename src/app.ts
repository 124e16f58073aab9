import express, { type Express } from 'express';
import { type Access, createAccess } from './access';
import type { AccessEvents } from './access/access-events';
import { adminJwtAuth, createAdminTokenVerifier } from './auth/admin-jwt';
import { adminApiAuth } from './auth/admin-session-auth';
import { mountConsole } from './routes/console/mount';
import { createSessions } from './console/sessions';
import { type ConsoleAssets, loadConsoleAssets } from './console/assets';
import { createSignInLinks } from './console/sign-in-links';
import { ERROR_CODES } from './errors';
import { listCustomersRoute } from './routes/admin/list-customers';
import { customerRoute } from './routes/admin/customer';
import { createCustomerDirectory } from './store/customer-directory';
import { serviceSecretAuth } from './auth/service-secret';
import type { Config } from './config';
import { errorHandler, notFound } from './http/error-handler';
import { jsonBody } from './http/json-body';
import { type Lifecycle, logAccess, requestContext } from './http/request-context';
import { apiSecurityHeaders } from './http/security-headers';
import { type ConnectionResolver, createConnectionResolver } from './integrations/connections';
import { tokenRefresherFor } from './integrations/token-refresh';
import { grantPolicyFor } from './integrations/grant-health';
import { createGrantReuse } from './integrations/grant-reuse';
import { createConnectLinks } from './integrations/connect-links';
import { createSetupUrlFor } from './integrations/setup-url';
import { createConnectFlow } from './integrations/connect-flow';
import type { CredentialChange, CredentialEvents } from './integrations/credential-events';
import { createGoogleOAuth } from './integrations/google-oauth';
import { createOAuthStates } from './integrations/oauth-states';
import { createConnectCompletions } from './integrations/connect-completions';
import { connectCallbackRoute } from './routes/connect/callback';
import { connectStartRoute } from './routes/connect/start';
import type { Logger } from './logger';
import { executeRoute } from './routes/execute';
import { mcpJsonBody, mcpMethodNotAllowed, mcpOriginCheck, mcpRoute } from './routes/mcp';
import type { RecordedExecuteDeps } from './tools/recorded-execute';
import type { Redis } from 'ioredis';
import { createGoogleClients } from './integrations/google-clients';
import { type IdempotencyGuard, createIdempotencyGuard } from './protection/idempotency';
import { createPostgresIdempotencyStore } from './protection/idempotency-postgres';
import { createRedisIdempotencyStore } from './protection/idempotency-redis';
import { createRateLimiter } from './protection/rate-limit';
import { createRedisHealth } from './store/redis-health';
import { healthz, readyz } from './routes/health';
import { createUpstream } from './upstream';
import { integrationStatusRoute } from './routes/integration-status';
import { createConnectLinkRoute } from './routes/admin/create-connect-link';
import { deleteIntegrationRoute } from './routes/admin/delete-integration';
import { listIntegrationsRoute } from './routes/admin/list-integrations';
import { workingHoursRoute } from './routes/admin/working-hours';
import { policyRoute } from './routes/admin/policy';
import { createServiceKeyRoute } from './routes/admin/create-service-key';
import { readServiceKeysRoute } from './routes/admin/read-service-keys';
import { keyReceiptsRoute } from './routes/admin/key-receipts';
import { revokeServiceKeyRoute } from './routes/admin/revoke-service-key';
import { catalogRoute } from './routes/catalog';
import { createDisconnect } from './integrations/disconnect';
import { apiDocsRoute } from './routes/api-docs';
import { openApiRoute } from './routes/openapi';
import { type CredentialStore, createCredentialStore } from './store/credential-store';
import type { Db, Queryable } from './store/db';
import { type KeyRotation, createKeyRotation } from './store/key-rotation';
import { createHubSecrets } from './store/hub-secrets';
import { createTokenCipher } from './store/token-cipher';
import { createEventIds, type EventIds } from './tools/calendar/event-id';
import { buildCatalog } from './tools/catalog';
import { BUILT_IN_TOOLS } from './tools';
import { type ToolRegistry, createToolRegistry } from './tools/registry';
import { createToolCache } from './tools/tool-cache';
import { type HtmlConverter, createHtmlConverter } from './tools/email/html-text';
import type { AnyTool } from './tools/types';
import type { Tracer } from '@opentelemetry/api';
import { type HubMetrics, createMetrics, noMetrics } from './observability/metrics';
import { createTracing } from './observability/tracing';
import { metricsRoute } from './routes/metrics';
import { countConnections } from './store/connection-counts';
import { webhookBacklog } from './store/webhook-backlog';
import { type Audit, createAudit } from './audit/audit';
import type { ConnectionEvent, OnConnectionEvent } from './audit/connection-events';
import { createEndpoints } from './webhooks/endpoints';
import { type Webhooks, createWebhooks } from './webhooks/webhooks';
import { listReceiptsRoute } from './routes/admin/list-receipts';
import { overviewRoute } from './routes/admin/overview';
import { getReceiptRoute } from './routes/admin/get-receipt';
import { replayBundleRoute } from './routes/admin/replay-bundle';
import { webhookEndpointRoute } from './routes/admin/webhook-endpoint';
import { webhookDeliveriesRoute } from './routes/admin/webhook-deliveries';

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
  const refresher = tokenRefresherFor(config, store, deps.redis ?? null, logger, { metrics, tracing }, onConnectionEvent);
  const connections = createConnectionResolver({
    store,
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
  const google = createGoogleClients(config.google);
  const upstream = createUpstream(config.upstream, logger, { redis, metrics, tracing });
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
  const auth = serviceSecretAuth(config.serviceSecrets, access.keys);
  const eventIds = createEventIds(secrets, logger);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // API answers are not cacheable (Cache-Control: no-store); hashing them is wasted work
  app.set('trust proxy', config.trustProxy);

  app.use(requestContext({ logger, lifecycle, securityHeaders: apiSecurityHeaders() }));

  // Routes are flat (no nested routers): the execute call is the hot path and passes the fewest layers first.
  const execute: RecordedExecuteDeps = {
    tools,
    connections,
    logger,
    rateLimiter,
    idempotency,
    google,
    upstream,
    deadlineMs: config.upstream.toolDeadlineMs,
    settings: { ...config.tools, eventIds },
    cache: createToolCache(),
    html,
    metrics,
    tracing,
    ...(config.audit.enabled ? { audit } : {}),
    policyGuard: access.policyGuard,
    ...(deps.now ? { now: deps.now } : {}),
  };
  app.post('/api/internal/tools/execute', auth, jsonBody, executeRoute(execute, config.rateLimit.refusalHoldMs));
  app.get('/api/internal/tools', auth, catalogRoute({ catalog, tools, policies: access.policies, logger }));
  app.get(
    '/api/internal/integrations/status/:customer_id',
    auth,
    integrationStatusRoute({ store, tools, setupUrlFor, grants: grantPolicyFor(config.google), policies: access.policies, logger }),
  );
  app.use('/api/internal', auth); // unknown internal paths: authenticate first, so probing learns nothing

  // The same tools over the Model Context Protocol: the origin checked first, then the same service secret; each
  // tools/call runs through the very executeTool above. Registered after execute, so its hot path is unchanged.
  app.post(
    '/mcp',
    mcpOriginCheck(config.mcp.allowedOrigins),
    auth,
    mcpJsonBody,
    mcpRoute({ execute, catalog, policies: access.policies, logger, refusalHoldMs: config.rateLimit.refusalHoldMs }),
  );
  app.all('/mcp', mcpOriginCheck(config.mcp.allowedOrigins), mcpMethodNotAllowed);

  // The admin API (Bearer JWT): connect links, and every connection of a customer, listed or disconnected.
  // …or the admin console's session cookie (with its CSRF header): the console is one more client of this API.
  const sessions = createSessions(db, { idleS: config.console.idleTimeoutS, maxS: config.console.sessionMaxS });
  const adminAuth = adminApiAuth(adminJwtAuth(config.admin), sessions, logger);
  const disconnect = createDisconnect({
    store,
    google,
    timeoutMs: config.upstream.attemptTimeoutMs,
    onCredentialChanged: credentialChanged,
    onConnectionEvent,
  });
  app.post(
    '/api/admin/connect-links',
    adminAuth,
    jsonBody,
    createConnectLinkRoute({ connectLinks, returnUrlPrefixes: config.connect.returnUrlPrefixes, logger }),
  );
  const directory = createCustomerDirectory(db);
  app.get('/api/admin/customers', adminAuth, listCustomersRoute({ directory, store, tools, grants: grantPolicyFor(config.google), logger }));
  app.get('/api/admin/customers/:customer_id', adminAuth, customerRoute({ directory, endpoints, policies: access.policyStore, logger }, 'get'));
  app.put('/api/admin/customers/:customer_id', adminAuth, jsonBody, customerRoute({ directory, endpoints, policies: access.policyStore, logger }, 'put'));
  app.get(
    '/api/admin/customers/:customer_id/integrations',
    adminAuth,
    listIntegrationsRoute({ store, tools, setupUrlFor, grants: grantPolicyFor(config.google), logger }),
  );
  app.delete('/api/admin/customers/:customer_id/integrations/:integration', adminAuth, deleteIntegrationRoute({ disconnect, logger }));
  const workingHours = { store, onCredentialChanged: credentialChanged, onConnectionEvent, logger };
  app.put('/api/admin/customers/:customer_id/integrations/google_calendar/working-hours', adminAuth, jsonBody, workingHoursRoute(workingHours, 'set'));
  app.delete('/api/admin/customers/:customer_id/integrations/google_calendar/working-hours', adminAuth, workingHoursRoute(workingHours, 'clear'));
  // The audit trail and webhooks (src/audit, src/webhooks).
  const auditDeps = { db, logger };
  const catalogEntries = new Map(catalog.tools.map((t) => [`${t.name}@${t.version}`, t]));
  app.get('/api/admin/customers/:customer_id/receipts', adminAuth, listReceiptsRoute(auditDeps));
  app.get('/api/admin/overview', adminAuth, overviewRoute({ ...auditDeps, ...(deps.now ? { now: deps.now } : {}) }));
  app.get('/api/admin/customers/:customer_id/receipts/:call_id', adminAuth, getReceiptRoute(auditDeps));
  app.get(
    '/api/admin/customers/:customer_id/conversations/:conversation_id/replay-bundle',
    adminAuth,
    replayBundleRoute({ ...auditDeps, catalogEntry: (name, version) => catalogEntries.get(`${name}@${version}`) }),
  );
  const webhookEndpoint = { endpoints, allowPrivate: config.webhooks.allowPrivate, secretOverlapS: config.webhooks.secretOverlapS, logger };
  app.get('/api/admin/customers/:customer_id/webhook', adminAuth, webhookEndpointRoute(webhookEndpoint, 'get'));
  app.put('/api/admin/customers/:customer_id/webhook', adminAuth, jsonBody, webhookEndpointRoute(webhookEndpoint, 'put'));
  app.delete('/api/admin/customers/:customer_id/webhook', adminAuth, webhookEndpointRoute(webhookEndpoint, 'delete'));
  app.post('/api/admin/customers/:customer_id/webhook/rotate-secret', adminAuth, webhookEndpointRoute(webhookEndpoint, 'rotate'));
  app.get('/api/admin/customers/:customer_id/webhook-deliveries', adminAuth, webhookDeliveriesRoute(auditDeps));
  const keyRoutes = { access, tools, logger };
  app.post('/api/admin/service-keys', adminAuth, jsonBody, createServiceKeyRoute(keyRoutes));
  app.get('/api/admin/service-keys', adminAuth, readServiceKeysRoute(keyRoutes));
  app.get('/api/admin/service-keys/:id', adminAuth, readServiceKeysRoute(keyRoutes));
  app.get('/api/admin/service-keys/:id/receipts', adminAuth, keyReceiptsRoute({ ...keyRoutes, db }));
  app.delete('/api/admin/service-keys/:id', adminAuth, revokeServiceKeyRoute(keyRoutes));
  const policies = { access, tools, logger };
  for (const path of ['/api/admin/customers/:customer_id/policy', '/api/admin/customers/:customer_id/agents/:agent_id/policy']) {
    app.get(path, adminAuth, policyRoute(policies, 'get'));
    app.put(path, adminAuth, jsonBody, policyRoute(policies, 'put'));
    app.delete(path, adminAuth, policyRoute(policies, 'delete'));
  }
  app.use('/api/admin', adminAuth); // unknown admin paths: authenticate first, as for /api/internal

  // The browser side of connecting Google: a signed connect link in, Google's consent, the callback back.
  const connectFlow = createConnectFlow({
    links: connectLinks,
    states: createOAuthStates(db, cipher, { perLink: config.connect.maxAttemptsPerLink, perAddress: config.connect.maxAttemptsPerAddress }),
    completions: createConnectCompletions(db, { leaseMs: config.upstream.toolDeadlineMs + 10_000 }),
    oauth: createGoogleOAuth({ config, google, logger }),
    reuse: createGrantReuse({ store, refresher, grants: grantPolicyFor(config.google), timeoutMs: config.upstream.toolDeadlineMs, logger }),
    store,
    tools,
    returnUrlPrefixes: config.connect.returnUrlPrefixes,
    onCredentialChanged: credentialChanged,
    onConnectionEvent,
    logger,
  });
  const secureCookies = config.publicUrl.startsWith('https:');
  app.get('/integrations/google/connect', connectStartRoute({ flow: connectFlow, secureCookies }));
  app.get('/integrations/google/callback', connectCallbackRoute({ flow: connectFlow, secureCookies }));

  const { key } = config.admin;
  // Browsers ask every origin for /favicon.ico (the console's pages name their own icon; the connect pages do
  // not): an empty answer, cached for a day, rather than a 404 in every browser console.
  app.get('/favicon.ico', (_req, res) => {
    res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' }).end();
    logAccess(res);
  });
  mountConsole(app, {
    sessions,
    links: createSignInLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys }),
    assets: deps.consoleAssets === undefined ? loadConsoleAssets() : deps.consoleAssets,
    secure: secureCookies,
    origin: new URL(config.publicUrl).origin,
    verifyAdminJwt:
      key === null ? null : createAdminTokenVerifier({ key, issuer: config.admin.issuer, audience: config.admin.audience, maxTtlS: config.admin.maxTtlS }),
    vocabulary: { tools: [...tools.names()].sort(), errorCodes: ERROR_CODES },
    logger,
  });

  app.get('/healthz', healthz(lifecycle));
  app.get('/readyz', readyz({ db, redis, lifecycle }));
  app.get('/openapi.yaml', openApiRoute());
  app.get(['/docs', '/docs/'], apiDocsRoute());
  const scrape = metricsRoute(metrics, obs.metricsToken);
  if (obs.metrics && obs.metricsPort === undefined) app.get('/metrics', scrape);

  app.use(notFound);
  app.use(errorHandler(logger));
  const metricsApp = obs.metrics && obs.metricsPort !== undefined ? createMetricsApp(scrape, { logger, lifecycle }) : undefined;
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

/** The metrics listener's app (HUB_METRICS_PORT): /metrics and nothing else, with the API's envelope for errors. */
function createMetricsApp(scrape: ReturnType<typeof metricsRoute>, deps: { logger: Logger; lifecycle: Lifecycle }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext({ ...deps, securityHeaders: apiSecurityHeaders() }));
  app.get('/metrics', scrape);
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
