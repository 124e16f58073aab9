import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { type HubApp, createApp } from './app';
import { type CredentialEvents, openCredentialEvents } from './integrations/credential-events';
import { type AccessEvents, openAccessEvents } from './access/access-events';
import type { Config } from './config';
import type { Db } from './store/db';
import { type Logger, createLogger } from './logger';
import { migrate, pendingMigrations } from './store/migrate';
import { openDatabase } from './store/open';
import { openRedis } from './store/redis';
import type { Lifecycle } from './http/request-context';
import type { AnyTool } from './tools/types';
import type { Tracer } from '@opentelemetry/api';

export interface RunningHub extends HubApp {
  url: string;
  port: number;
  server: Server;
  /** The metrics listener (HUB_METRICS_PORT), when /metrics has its own port. */
  metricsServer?: { server: Server; port: number };
  logger: Logger;
  /** The open database (its `lost`, its `channel` for another thread). */
  db: Db;
  /**
   * Resolves when something this process cannot get back is gone — the embedded database's thread died — after
   * liveness has started to fail. stopOnSignals() then closes the Hub and exits 1, for a supervisor to restart it.
   */
  lost: Promise<Error>;
  /**
   * Graceful stop: readiness off while still serving for the grace period (load balancers drain), then stop
   * accepting, let in-flight requests finish (up to the shutdown timeout), close pools.
   */
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  tools?: readonly AnyTool[];
  /** The OpenTelemetry SDK's tracer, when main.ts started the SDK. */
  tracer?: Tracer;
  /** Last step of a graceful stop (main.ts: flush the SDK's last spans). */
  onClose?: () => Promise<void>;
}

/** Secrets the logger must never print, whatever path they take into a log line. */
export const secretLiterals = (config: Config) => [
  ...config.serviceSecrets,
  ...config.encryptionKeys.map((k) => k.key.toString('base64')),
  ...(config.google.clientSecret ? [config.google.clientSecret] : []),
  ...(config.microsoft.clientSecret ? [config.microsoft.clientSecret] : []),
  ...(config.admin.key?.algorithm === 'HS256' ? [config.admin.key.secret] : []),
  ...(config.observability.metricsToken ? [config.observability.metricsToken] : []),
  ...config.webhooks.secrets,
];

export async function startHub(config: Config, options: StartOptions = {}): Promise<RunningHub> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets: secretLiterals(config) });
  const db = await openDatabase(config.database, logger);
  let redis: Redis | null = null;
  let credentialEvents: CredentialEvents | undefined;
  let accessEvents: AccessEvents | undefined;
  const releasePools = async () => {
    await credentialEvents?.close();
    await accessEvents?.close();
    await redis?.quit().catch(() => redis?.disconnect());
    await db.close();
  };

  let hub: HubApp;
  const lifecycle: Lifecycle = { shuttingDown: false };
  // A database outage on PostgreSQL is waited out (readiness fails, calls answer SERVICE_UNAVAILABLE); a dead
  // PGlite thread is not an outage: nothing in this process can reopen it.
  const lost = (db.lost ?? new Promise<Error>(() => {})).then((err) => {
    lifecycle.failed = 'database_lost';
    logger.fatal({ err }, 'the embedded database is gone (its thread died); liveness fails and the Hub stops, for a new process to reopen it');
    return err;
  });
  const server = createServer();
  let metricsServer: Server | undefined;
  try {
    await prepareSchema(db, config, logger);
    redis = config.redisUrl ? await openRedis(config.redisUrl, logger) : null;
    credentialEvents = redis ? await openCredentialEvents(redis, logger) : undefined;
    accessEvents = redis ? await openAccessEvents(redis, logger) : undefined;
    hub = createApp({
      config,
      logger,
      db,
      lifecycle,
      redis,
      tools: options.tools,
      ...(credentialEvents ? { credentialEvents } : {}),
      ...(accessEvents ? { accessEvents } : {}),
      ...(options.tracer ? { tracer: options.tracer } : {}),
    });
    await warnAboutUnknownKeys(hub, config, logger);
    // The audit key, so the first calls' receipts need not wait for it (a failure is logged; receipts wait).
    await hub.audit.ready().catch(() => {});
    server.on('request', hub.app);
    server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts (60 s), so they close first
    server.headersTimeout = 66_000;
    server.requestTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(explainListenError(err, 'HUB_PORT')));
      server.listen(config.port, config.host, () => resolve());
    });
    if (hub.metricsApp) {
      const listener = createServer(hub.metricsApp);
      metricsServer = listener;
      await new Promise<void>((resolve, reject) => {
        listener.once('error', (err) => reject(explainListenError(err, 'HUB_METRICS_PORT')));
        listener.listen(config.observability.metricsPort, config.host, () => resolve());
      });
    }
  } catch (err) {
    server.close();
    metricsServer?.close();
    await releasePools(); // a failed start (port taken, bad migration) leaves nothing open
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  const metricsPort = metricsServer ? (metricsServer.address() as AddressInfo).port : undefined;
  logger.info({ port, database: db.kind, redis: redis !== null, ...(metricsPort !== undefined ? { metrics_port: metricsPort } : {}) }, 'hub listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      hub.lifecycle.shuttingDown = true;
      if (config.shutdownGraceMs > 0) {
        // Refusing connections now would fail requests a load balancer is still sending; failing /readyz (and
        // closing each kept-alive connection after its answer) tells it to stop, and the grace gives it time to.
        logger.info({ grace_ms: config.shutdownGraceMs }, 'readiness off; serving while load balancers drain');
        await new Promise((resolve) => setTimeout(resolve, config.shutdownGraceMs));
      }
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), config.shutdownTimeoutMs);
      });
      if ((await Promise.race([drained, deadline])) === 'timeout') {
        logger.warn({ timeout_ms: config.shutdownTimeoutMs }, 'shutdown deadline reached; closing remaining connections');
        server.closeAllConnections();
        await drained;
      }
      clearTimeout(timer);
      if (metricsServer) {
        const stopped = new Promise<void>((resolve) => metricsServer!.close(() => resolve()));
        metricsServer.closeAllConnections(); // scrapes are short and idempotent: nothing to drain
        await stopped;
      }
      await hub.html.close();
      // Requests have finished: what an outage left unrecorded goes to the store before its clients close.
      await hub.idempotency.drain(Math.min(config.shutdownTimeoutMs, 5_000));
      await hub.webhooks.close();
      await hub.audit.close(); // flushes queued receipts while the database is still open
      await hub.access.close().catch((err: unknown) => logger.warn({ err }, 'service keys: last use not recorded'));
      await releasePools();
      await options.onClose?.().catch((err: unknown) => logger.warn({ err }, 'flushing traces at shutdown failed'));
      logger.info('hub stopped');
      logger.flush();
    })());

  return {
    ...hub,
    url,
    port,
    server,
    logger,
    db,
    lost,
    close,
    ...(metricsServer && metricsPort !== undefined ? { metricsServer: { server: metricsServer, port: metricsPort } } : {}),
  };
}

/**
 * For entry points: a SIGTERM or SIGINT closes the Hub gracefully, then the process exits (1 if closing failed).
 * So does the loss of the embedded database (`hub.lost`), exiting 1: a supervisor (Docker's restart policy,
 * Kubernetes, systemd) then starts a process that reopens it. Answers a function that
 * removes the signal listeners; `exit` is process.exit but for tests.
 */
export function stopOnSignals(hub: RunningHub, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  let stopping = false;
  const stop = (why: NodeJS.Signals | 'database_lost') => {
    if (stopping) return;
    stopping = true;
    const failed = why === 'database_lost';
    if (!failed) hub.logger.info({ signal: why }, 'shutting down');
    hub.close().then(
      () => exit(failed ? 1 : 0),
      (err: unknown) => {
        hub.logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  void hub.lost.then(() => stop('database_lost'));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  };
}

/** What an entry point prints when the Hub cannot start (the message only: no stack for an operator to parse). */
export function exitOnStartFailure(what: string) {
  return (err: unknown): never => {
    process.stderr.write(`${what}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  };
}

/**
 * Migrations at start (the default), or — when a separate `migrate` step owns them (HUB_MIGRATE_ON_START=false,
 * as in deploy/) — only a read-only check, so a replica never serves on a schema older than its code.
 */
async function prepareSchema(db: Db, config: Config, logger: Logger) {
  if (config.migrateOnStart) {
    await migrate(db, logger);
    return;
  }
  const pending = await pendingMigrations(db);
  if (pending.length > 0) {
    throw new Error(
      `the database lacks migrations ${pending.join(', ')} and HUB_MIGRATE_ON_START=false: run the migrate command first ` +
        '(`npm run migrate`; `node dist/src/cli/migrate.js` in the image)',
    );
  }
}

/** A taken port names the variable that moves it (Node's EADDRINUSE names only the address); the code is kept. */
export function explainListenError(err: unknown, variable: string): unknown {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code !== 'EADDRINUSE') return err;
  return Object.assign(new Error(`port ${e.port} on ${e.address} is already in use: set ${variable} to a free port, or stop what holds it`), {
    code: e.code,
  });
}

/** Rows sealed by a key that is no longer configured cannot be used; say so at start, not at the first call. */
async function warnAboutUnknownKeys(hub: HubApp, config: Config, logger: Logger) {
  const configured = new Set(config.encryptionKeys.map((k) => k.id));
  const usage = await hub.keys.keyUsage();
  const unknown = usage.filter((u) => !configured.has(u.keyId));
  if (unknown.length > 0) {
    logger.error({ keys: unknown }, 'credentials are sealed with encryption keys missing from HUB_ENCRYPTION_KEYS');
  }
  const old = usage.filter((u) => configured.has(u.keyId) && u.keyId !== config.encryptionKeys[0]!.id);
  if (old.length > 0) logger.info({ keys: old }, 'credentials sealed with older keys; run `npm run rotate-keys`');
}
