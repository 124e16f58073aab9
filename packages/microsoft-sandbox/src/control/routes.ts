import express, { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { PRESETS, addFault, describeFault, faultSpecSchema } from '../faults';
import { consentKey } from '../identity/state';
import { GRAPH_SCOPES, parseScopes } from '../identity/scopes';
import { mintAccessToken, mintRefreshToken } from '../identity/tokens';
import { THROTTLE_PRESETS } from '../throttle';
import { type World, findPerson } from '../world';
import { mountAccounts } from './account-routes';
import { type Outcome, createTenant, tenantSpecSchema } from './seed';

/**
 * The control API (`/_sandbox/...`), for tests and demos only — mounted only in sandbox mode. Bodies are strict
 * JSON; every error is `{ "error": { "code", "message" } }`. It never returns a client secret.
 */

export interface ControlDeps {
  world: () => World;
  reset: (seed?: number) => void;
}

export const fail = (res: Response, status: number, message: string) => res.status(status).json({ error: { code: status, message } });

export function parse<T extends z.ZodType>(schema: T, req: Request, res: Response): z.infer<T> | undefined {
  const parsed = schema.safeParse(req.body ?? {});
  if (parsed.success) return parsed.data;
  fail(res, 400, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return undefined;
}

export const answer = <T>(res: Response, o: Outcome<T>, status: number, body: (v: T) => unknown) =>
  o.ok ? res.status(status).json(body(o.value)) : fail(res, o.status, o.message);
const graphScope = z.string().refine((s) => s in GRAPH_SCOPES, { message: 'not a Graph permission the sandbox knows' });

const appSchema = z.strictObject({
  client_id: z.uuid(),
  client_secret: z.string().min(1).optional(),
  redirect_uris: z.array(z.url()).min(1),
  name: z.string().min(1).optional(),
  permissions: z.array(graphScope).optional(),
});
const consentSchema = z.strictObject({
  mode: z.enum(['page', 'auto']),
  account: z.email().optional(),
  grant: z.array(graphScope).optional(),
  deny: z.boolean().optional(),
});
const tenantConsentSchema = z.strictObject({
  user_consent: z.enum(['users', 'admin']).optional(),
  admin_consent: z.strictObject({ client_id: z.uuid(), scopes: z.array(graphScope) }).optional(),
});
const tokenSchema = z.strictObject({ upn: z.email(), client_id: z.uuid(), scopes: z.array(graphScope).min(1), offline: z.boolean().optional() });
const throttleSchema = z.union([
  z.strictObject({ preset: z.enum(Object.keys(THROTTLE_PRESETS) as [string, ...string[]]) }),
  z.strictObject({
    requests_per_window: z.number().int().min(1),
    window_s: z.number().int().min(1),
    concurrent: z.number().int().min(1),
    upload_bytes: z.number().int().min(1).optional(),
    upload_window_s: z.number().int().min(1).optional(),
  }),
]);
const consistencySchema = z.strictObject({
  sent_items_delay_ms: z.number().int().min(0).optional(),
  delivery_delay_ms: z.number().int().min(0).optional(),
  new_event_delay_ms: z.number().int().min(0).optional(),
});
const lifetimeSchema = z.strictObject({
  access_token_min_s: z.number().int().min(1).optional(),
  access_token_max_s: z.number().int().min(1).optional(),
  auth_code_s: z.number().int().min(1).optional(),
  refresh_inactive_s: z.number().int().min(1).optional(),
});

export function controlRoutes(deps: ControlDeps): Router {
  const router = Router();
  const w = deps.world;
  router.use(express.json({ limit: '40mb' }));

  router.post('/reset', (req, res) => {
    const body = parse(z.strictObject({ seed: z.number().int().optional() }), req, res);
    if (!body) return;
    deps.reset(body.seed);
    res.json({ ok: true });
  });
  router.get('/clock', (_req, res) => res.json({ now: new Date(w().clock.now()).toISOString() }));
  router.post('/clock/advance', (req, res) => {
    const body = parse(
      z.strictObject({
        seconds: z
          .number()
          .min(0)
          .max(400 * 86_400),
      }),
      req,
      res,
    );
    if (!body) return;
    w().clock.advance(body.seconds * 1000);
    res.json({ now: new Date(w().clock.now()).toISOString() });
  });

  router.get('/tenants', (_req, res) =>
    res.json({
      tenants: [...w().tenants.values()].map((t) => ({
        id: t.id,
        domain: t.domain,
        display_name: t.displayName,
        user_consent: t.userConsent,
        admin_consent: Object.fromEntries([...t.adminConsent].map(([k, v]) => [k, [...v]])),
      })),
    }),
  );
  router.post('/tenants', (req, res) => {
    const spec = parse(tenantSpecSchema, req, res);
    if (spec) answer(res, createTenant(w(), spec), 201, (t) => ({ id: t.id, domain: t.domain }));
  });
  router.put('/tenants/:tenant/consent', (req, res) => {
    const t = [...w().tenants.values()].find((x) => x.id === req.params.tenant || x.domain === req.params.tenant.toLowerCase());
    if (!t) return fail(res, 404, `no tenant ${req.params.tenant}`);
    const body = parse(tenantConsentSchema, req, res);
    if (!body) return;
    if (body.user_consent) t.userConsent = body.user_consent;
    if (body.admin_consent) t.adminConsent.set(body.admin_consent.client_id, new Set(body.admin_consent.scopes));
    res.json({ user_consent: t.userConsent, admin_consent: Object.fromEntries([...t.adminConsent].map(([k, v]) => [k, [...v]])) });
  });

  mountAccounts(router, w, { parse, fail, answer });

  router.post('/apps', (req, res) => {
    const a = parse(appSchema, req, res);
    if (!a) return;
    w().identity.apps.set(a.client_id, {
      clientId: a.client_id,
      name: a.name ?? a.client_id,
      secret: a.client_secret,
      redirectUris: a.redirect_uris,
      permissions: a.permissions ?? ['User.Read'],
    });
    res.status(201).json({ client_id: a.client_id, redirect_uris: a.redirect_uris, confidential: a.client_secret !== undefined });
  });
  router.put('/consent', (req, res) => {
    const c = parse(consentSchema, req, res);
    if (!c) return;
    w().identity.consent = {
      mode: c.mode,
      ...(c.account ? { account: c.account } : {}),
      ...(c.grant ? { grant: c.grant } : {}),
      ...(c.deny ? { deny: true } : {}),
    };
    res.json(w().identity.consent);
  });
  router.put('/lifetimes', (req, res) => {
    const l = parse(lifetimeSchema, req, res);
    if (!l) return;
    const t = w().identity.lifetimes;
    Object.assign(t, {
      ...(l.access_token_min_s !== undefined ? { accessTokenMinS: l.access_token_min_s } : {}),
      ...(l.access_token_max_s !== undefined ? { accessTokenMaxS: l.access_token_max_s } : {}),
      ...(l.auth_code_s !== undefined ? { authCodeS: l.auth_code_s } : {}),
      ...(l.refresh_inactive_s !== undefined ? { refreshInactiveS: l.refresh_inactive_s } : {}),
    });
    if (t.accessTokenMaxS < t.accessTokenMinS) t.accessTokenMaxS = t.accessTokenMinS;
    res.json(t);
  });
  /** Tokens without the browser dance, as after consent: the app must be registered; consent is recorded. */
  router.post('/tokens', (req, res) => {
    const t = parse(tokenSchema, req, res);
    if (!t) return;
    const world = w();
    const p = findPerson(world, t.upn);
    const app = world.identity.apps.get(t.client_id);
    if (!p || !app) return fail(res, 404, !p ? `no sandbox account ${t.upn}` : `no app ${t.client_id}`);
    const scopes = parseScopes(t.scopes.join(' '));
    if (!scopes.ok) return fail(res, 400, `unknown scope ${scopes.unknown}`);
    world.identity.consents.set(
      consentKey(app.clientId, p.id),
      new Set([...(world.identity.consents.get(consentKey(app.clientId, p.id)) ?? []), ...scopes.graph]),
    );
    const access = mintAccessToken(world, app, p, scopes.graph);
    res.status(201).json({
      access_token: access.token,
      expires_in: access.lifetimeS,
      ...(t.offline ? { refresh_token: mintRefreshToken(world, app, p, [...scopes.graph, 'offline_access']) } : {}),
    });
  });

  router.get('/faults', (_req, res) => res.json({ faults: w().faults.rules.map(describeFault), presets: Object.keys(PRESETS) }));
  router.post('/faults', (req, res) => {
    const f = parse(faultSpecSchema, req, res);
    if (f) res.status(201).json(describeFault(addFault(w(), f)));
  });
  router.delete('/faults', (_req, res) => {
    w().faults.rules = [];
    res.status(204).end();
  });
  router.put('/throttling', (req, res) => {
    const t = parse(throttleSchema, req, res);
    if (!t) return;
    w().throttle.limits =
      'preset' in t
        ? THROTTLE_PRESETS[t.preset]!
        : {
            requestsPerWindow: t.requests_per_window,
            windowS: t.window_s,
            concurrent: t.concurrent,
            uploadBytes: t.upload_bytes ?? 150 * 1024 * 1024,
            uploadWindowS: t.upload_window_s ?? 300,
          };
    w().throttle.budgets.clear();
    res.json({ limits: w().throttle.limits });
  });
  router.put('/consistency', (req, res) => {
    const c = parse(consistencySchema, req, res);
    if (!c) return;
    const s = w().consistency;
    if (c.sent_items_delay_ms !== undefined) s.sentItemsDelayMs = c.sent_items_delay_ms;
    if (c.delivery_delay_ms !== undefined) s.deliveryDelayMs = c.delivery_delay_ms;
    if (c.new_event_delay_ms !== undefined) s.newEventDelayMs = c.new_event_delay_ms;
    res.json(s);
  });
  router.get('/requests', (_req, res) => res.json({ requests: w().requestLog }));
  router.get('/violations', (_req, res) => res.json({ violations: w().violations }));
  router.use((_req: Request, res: Response) => fail(res, 404, 'no such control endpoint'));
  return router;
}
