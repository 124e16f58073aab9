import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { apiDispatcher, sendResult } from './api/dispatch';
import { API_HANDLERS } from './api/handlers';
import { type AccountSpec, createAccount } from './control/accounts';
import { controlRoutes } from './control/routes';
import { loadDiscoveryDocuments } from './discovery/documents';
import { buildRoutes } from './discovery/routes';
import { faultInjector } from './faults';
import { googleError } from './google-errors';
import { oauthRoutes } from './oauth/routes';
import { quotaGate } from './quotas';
import { knownScopes } from './oauth/scopes';
import { type ConsentPolicy, type OAuthClient, type SigningKey, createSigningKey } from './oauth/state';
import { type World, createWorld } from './world';

/**
 * The Google sandbox: Google's OAuth 2.0 endpoints, Calendar v3 and Gmail v1 at Google's own paths, on one
 * origin, in memory. Point googleapis' `rootUrl` and OAuth2Client's `endpoints` at it and nothing else changes.
 */

export interface SandboxOptions {
  seed?: number;
  /** Mount the control API under /_sandbox/ (sandbox mode). Off by default. */
  control?: boolean;
  /** Check every successful API response against its Discovery schema and record departures (tests). */
  checkResponses?: boolean;
  accessTokenLifetimeS?: number;
  clients?: OAuthClient[];
  consent?: ConsentPolicy;
  accounts?: AccountSpec[];
  /** Where sandbox bugs (unexpected exceptions) are reported. */
  onError?: (err: unknown) => void;
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface Sandbox {
  app: Express;
  readonly world: World;
  reset(seed?: number): void;
  listen(port?: number, host?: string): Promise<RunningSandbox>;
}

const NOT_FOUND_PAGE = `<!DOCTYPE html>
<html lang=en><meta charset=utf-8><title>Error 404 (Not Found)!!1</title>
<p><b>404.</b> <ins>That’s an error.</ins><p>The requested URL was not found on this server. <ins>That’s all we know.</ins>`;

function seedWorld(options: SandboxOptions, seed: number | undefined, signing: SigningKey): World {
  const world = createWorld({ seed, signing, ...(options.accessTokenLifetimeS ? { accessTokenLifetimeS: options.accessTokenLifetimeS } : {}) });
  for (const client of options.clients ?? []) world.oauth.clients.set(client.clientId, { ...client });
  if (options.consent) world.oauth.consent = { ...options.consent };
  for (const spec of options.accounts ?? []) {
    const created = createAccount(world, spec);
    if (!created.ok) throw new Error(`sandbox seed account ${spec.email}: ${created.message}`);
  }
  return world;
}

/** Records every non-control request once it is answered (or dropped). */
const requestLog =
  (getWorld: () => World): RequestHandler =>
  (req, res, next) => {
    const world = getWorld();
    res.on('close', () => {
      world.requestLog.push({
        at: new Date(world.clock.now()).toISOString(),
        method: req.method,
        path: req.path,
        query: { ...(req.query as Record<string, unknown>), ...('access_token' in req.query ? { access_token: '[redacted]' } : {}) },
        operation: (res.locals.operation as string | undefined) ?? null,
        account: (res.locals.account as string | undefined) ?? null,
        scopes_used: (res.locals.scopesUsed as string[] | undefined) ?? [],
        status: res.locals.status === 0 ? 0 : res.statusCode,
        fault: (res.locals.fault as string | undefined) ?? null,
      });
    });
    next();
  };

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const docs = loadDiscoveryDocuments();
  const routes = buildRoutes(docs);
  const signing = createSigningKey();
  let world = seedWorld(options, options.seed, signing);
  const getWorld = () => world;
  const reset = (seed?: number) => {
    world = seedWorld(options, seed ?? options.seed, signing);
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.control) app.use('/_sandbox', controlRoutes({ world: getWorld, reset }));
  app.use(requestLog(getWorld));
  app.use(quotaGate(getWorld, routes));
  app.use(faultInjector(getWorld, routes));
  app.use(oauthRoutes(getWorld, knownScopes(docs)));
  app.use('/upload', express.raw({ type: () => true, limit: '36mb' }));
  app.use(express.json({ limit: '36mb' }));
  app.use(apiDispatcher({ world: getWorld, routes, handlers: API_HANDLERS, checkResponses: options.checkResponses ?? false }));
  app.use((_req, res) => {
    res.status(404).type('text/html; charset=UTF-8').send(NOT_FOUND_PAGE);
  });
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const e = err as { type?: string; status?: number; message?: string };
    if (res.headersSent) return;
    if (e.type === 'entity.parse.failed')
      return sendResult(res, googleError(400, `Invalid JSON payload received. ${e.message ?? ''}`.trim(), { reason: 'parseError' }));
    if (e.type === 'entity.too.large')
      return sendResult(res, googleError(413, 'Request payload size exceeds the limit: 36700160 bytes.', { reason: 'uploadTooLarge' }));
    if (e.status && e.status >= 400 && e.status < 500) return sendResult(res, googleError(e.status, e.message ?? 'Bad Request', { reason: 'badRequest' }));
    options.onError?.(err);
    sendResult(res, googleError(500, 'Internal error encountered.', { reason: 'backendError' }));
  };
  app.use(onError);

  return {
    app,
    get world() {
      return world;
    },
    reset,
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        const server = app.listen(port, host);
        // Idle keep-alive connections stay open as long as Google's front ends keep them: 610 s, the documented
        // default of Google Cloud's global external Application Load Balancer, which runs on the same Google Front
        // End (cloud.google.com/load-balancing/docs/https, "HTTP keepalive timeout"). Node's 5 s default closed them
        // far sooner than Google, racing clients that reuse a connection just as it closes (ECONNRESET).
        server.keepAliveTimeout = 610_000;
        server.once('error', reject);
        server.once('listening', () => {
          const address = server.address() as AddressInfo;
          const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
          resolve({
            url: `http://${shownHost}:${address.port}`,
            port: address.port,
            close: () =>
              new Promise<void>((done) => {
                server.close(() => done());
                server.closeAllConnections();
              }),
          });
        });
      }),
  };
}
