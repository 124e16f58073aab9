import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { controlRoutes } from './control/routes';
import { type Outcome, accountSpecSchema, createPerson, createTenant, tenantSpecSchema } from './control/seed';
import { createFaultState } from './faults';
import { GE, sendGraphError } from './graph/errors';
import { graphRoutes } from './graph/routes';
import { adminConsentRoutes } from './identity/admin-consent';
import { authorizeRoutes } from './identity/authorize';
import { discoveryRoutes } from './identity/discovery';
import { type AppRegistration, type ConsentPolicy, type Lifetimes, type SigningKey, createIdentityState, createSigningKey } from './identity/state';
import { tokenRoutes } from './identity/token';
import { createThrottleState } from './throttle';
import { type World, createBareWorld } from './world';
import type { z } from 'zod';

/**
 * The Microsoft sandbox: the identity platform's v2.0 endpoints and Microsoft Graph v1.0 (calendar, mail,
 * the user and mailbox settings) on one origin, in memory. Point MSAL's authority and the Graph client's
 * baseUrl at it and nothing else changes.
 */

export interface SandboxOptions {
  seed?: number;
  /** Mount the control API under /_sandbox/ (sandbox mode). Off by default. */
  control?: boolean;
  /** Check every Graph answer against the CSDL and record departures (tests). */
  checkResponses?: boolean;
  lifetimes?: Partial<Lifetimes>;
  apps?: AppRegistration[];
  consent?: ConsentPolicy;
  tenants?: z.input<typeof tenantSpecSchema>[];
  accounts?: z.input<typeof accountSpecSchema>[];
  /** Runs on each new world (demo data). */
  populate?: (world: World) => void;
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

function must<T>(o: Outcome<T>, what: string): T {
  if (!o.ok) throw new Error(`sandbox seed ${what}: ${o.message}`);
  return o.value;
}

function seedWorld(options: SandboxOptions, seed: number | undefined, signing: SigningKey): World {
  const world = createBareWorld(seed, {
    identity: createIdentityState(signing, options.lifetimes),
    faults: createFaultState(),
    throttle: createThrottleState(),
  });
  for (const app of options.apps ?? []) world.identity.apps.set(app.clientId, { ...app });
  if (options.consent) world.identity.consent = { ...options.consent };
  for (const t of options.tenants ?? []) must(createTenant(world, t), `tenant ${t.domain}`);
  for (const a of options.accounts ?? []) must(createPerson(world, a), `account ${a.upn}`);
  options.populate?.(world);
  return world;
}

const requestLog =
  (getWorld: () => World): RequestHandler =>
  (req, res, next) => {
    const world = getWorld();
    res.on('close', () => {
      world.requestLog.push({
        at: new Date(world.clock.now()).toISOString(),
        method: req.method,
        path: req.path,
        operation: (res.locals.operation as string | undefined) ?? null,
        user: (res.locals.user as string | undefined) ?? null,
        client: (res.locals.client as string | undefined) ?? null,
        status: res.headersSent ? res.statusCode : 0,
        fault: (res.locals.fault as string | undefined) ?? null,
        requestId: (res.locals.requestId as string | undefined) ?? '',
      });
      if (world.requestLog.length > 10_000) world.requestLog.splice(0, world.requestLog.length - 10_000);
    });
    next();
  };

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const signing = createSigningKey();
  let world = seedWorld(options, options.seed, signing);
  const getWorld = () => world;
  const reset = (seed?: number) => {
    world = seedWorld(options, seed ?? options.seed, signing);
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // A proxy (or a test's HTTPS-rewriting network client) on loopback may say the caller used https.
  app.set('trust proxy', 'loopback');
  if (options.control) app.use('/_sandbox', controlRoutes({ world: getWorld, reset }));
  app.use(requestLog(getWorld));
  app.use(discoveryRoutes(getWorld));
  app.use(authorizeRoutes(getWorld));
  app.use(adminConsentRoutes(getWorld));
  app.use(tokenRoutes(getWorld));
  app.use(graphRoutes(getWorld, { checkResponses: options.checkResponses ?? false, ...(options.onError ? { onError: options.onError } : {}) }));
  app.use((_req, res) => {
    res.status(404).type('text/html').send('<!DOCTYPE html><title>404 - File or directory not found.</title><h2>404 - File or directory not found.</h2>');
  });
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const e = err as { type?: string; status?: number };
    if (res.headersSent) return;
    const now = world.clock.now();
    if (e.type === 'entity.parse.failed')
      return sendGraphError(
        res,
        GE.badRequest('Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format.'),
        now,
      );
    if (e.type === 'entity.too.large')
      return sendGraphError(res, { status: 413, code: 'ErrorRequestEntityTooLarge', message: 'The request entity is too large.' }, now);
    if (e.status && e.status >= 400 && e.status < 500) return sendGraphError(res, GE.badRequest('Bad Request'), now);
    options.onError?.(err);
    void req;
    sendGraphError(res, { status: 500, code: 'generalException', message: 'General Exception While Processing' }, now);
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
