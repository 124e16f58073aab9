import express, { type Express } from 'express';
import { adminJwtAuth } from './auth/admin-jwt';
import { serviceSecretAuth } from './auth/service-secret';
import type { Config } from './config';
import { errorHandler, notFound } from './http/error-handler';
import { jsonBody } from './http/json-body';
import { type Lifecycle, requestContext } from './http/request-context';
import { apiSecurityHeaders } from './http/security-headers';
import { sendJson } from './http/respond';
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
import type { Redis } from 'ioredis';
import { createGoogleClients } from './integrations/google-clients';
import { createIdempotencyGuard } from './protection/idempotency';
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
import { createDisconnect } from './integrations/disconnect';
import { openApiRoute } from './routes/openapi';
import { type CredentialStore, createCredentialStore } from './store/credential-store';
import type { Db } from './store/db';
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

export interface AppDeps {
  config: Config;
  logger: Logger;
  db: Db;
  /** Shared state across replicas (rate limits, idempotency records); null = this process only. */
  redis?: Redis | null;
  lifecycle?: Lifecycle;
  /** Connection changes shared with the other replicas (Redis pub/sub); absent = this process only. */
  credentialEvents?: CredentialEvents;
  /** What tools take as the current time (Date.now by default; tests fix it). */
  now?: () => number;
  /** Defaults to every built-in tool; tests may add their own. */
  tools?: readonly AnyTool[];
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
  const refresher = tokenRefresherFor(config, store, deps.redis ?? null, logger);
  const connections = createConnectionResolver({ store, setupUrlFor, logger, refresher, cacheTtlMs: config.tokens.credentialCacheTtlMs, deadlineMs: config.upstream.toolDeadlineMs });
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
    : createPostgresIdempotencyStore(db, { ttlS: config.idempotency.ttlS });
  const idempotency = createIdempotencyGuard(idempotencyStore, { leaseMs: config.upstream.toolDeadlineMs + 2_000, ttlS: config.idempotency.ttlS, logger });
  const google = createGoogleClients(config.google);
  const upstream = createUpstream(config.upstream, logger);
  const html = createHtmlConverter(config.html); // its workers start on the first HTML mail
  const auth = serviceSecretAuth(config.serviceSecrets);
  const eventIds = createEventIds(createHubSecrets(db, cipher, logger), logger);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // API answers are not cacheable (Cache-Control: no-store); hashing them is wasted work
  app.set('trust proxy', config.trustProxy);

  app.use(requestContext({ logger, lifecycle, securityHeaders: apiSecurityHeaders() }));

  // Routes are flat (no nested routers): the execute call is the hot path and passes the fewest layers first.
  app.post('/api/internal/tools/execute', auth, jsonBody, executeRoute({ tools, connections, logger, rateLimiter, idempotency, google, upstream, deadlineMs: config.upstream.toolDeadlineMs, settings: { ...config.tools, eventIds }, cache: createToolCache(), html, ...(deps.now ? { now: deps.now } : {}) }));
  app.get('/api/internal/tools', auth, (_req, res) => sendJson(res, 200, catalog));
  app.get('/api/internal/integrations/status/:customer_id', auth, integrationStatusRoute({ store, tools, setupUrlFor, grants: grantPolicyFor(config.google), logger }));
  app.use('/api/internal', auth); // unknown internal paths: authenticate first, so probing learns nothing

  // The admin API (Bearer JWT): connect links, and every connection of a customer, listed or disconnected.
  const adminAuth = adminJwtAuth(config.admin);
  const disconnect = createDisconnect({ store, google, timeoutMs: config.upstream.attemptTimeoutMs, onCredentialChanged: credentialChanged });
  app.post('/api/admin/connect-links', adminAuth, jsonBody, createConnectLinkRoute({ connectLinks, returnUrlPrefixes: config.connect.returnUrlPrefixes, logger }));
  app.get('/api/admin/customers/:customer_id/integrations', adminAuth, listIntegrationsRoute({ store, tools, setupUrlFor, grants: grantPolicyFor(config.google), logger }));
  app.delete('/api/admin/customers/:customer_id/integrations/:integration', adminAuth, deleteIntegrationRoute({ disconnect, logger }));
  const workingHours = { store, onCredentialChanged: credentialChanged, logger };
  app.put('/api/admin/customers/:customer_id/integrations/google_calendar/working-hours', adminAuth, jsonBody, workingHoursRoute(workingHours, 'set'));
  app.delete('/api/admin/customers/:customer_id/integrations/google_calendar/working-hours', adminAuth, workingHoursRoute(workingHours, 'clear'));
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
    logger,
  });
  const secureCookies = config.publicUrl.startsWith('https:');
  app.get('/integrations/google/connect', connectStartRoute({ flow: connectFlow, secureCookies }));
  app.get('/integrations/google/callback', connectCallbackRoute({ flow: connectFlow, secureCookies }));

  app.get('/healthz', healthz);
  app.get('/readyz', readyz({ db, redis, lifecycle }));
  app.get('/openapi.yaml', openApiRoute());

  app.use(notFound);
  app.use(errorHandler(logger));
  return { app, store, keys: createKeyRotation(db, cipher), tools, lifecycle, connections, eventIds, html };
}
