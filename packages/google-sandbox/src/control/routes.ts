import express, { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { applyCalendarSettings, calendarSettingsFields, describeCalendarSettings } from '../calendar/settings';
import { addFault, describeFault, faultSpecSchema } from '../faults';
import { mintOfflineGrant, mintTestToken, revokeGrant } from '../oauth/tokens';
import { parseScopeParam } from '../oauth/scopes';
import { quotaControl } from '../quotas';
import type { World } from '../world';
import { findAccount } from '../world';
import { accountSpecSchema, addEvents, addMessages, createAccount, eventsSpecSchema, messagesSpecSchema, type Outcome } from './accounts';
import { describeAccount } from './describe';
import { mountOAuthLifetimes } from './oauth-lifetimes';

/**
 * The control API (`/_sandbox/...`), for tests and demos only — mounted only in sandbox mode. Bodies are strict
 * JSON; every error is `{ "error": { "code", "message" } }`.
 */

export interface ControlDeps {
  world: () => World;
  reset: (seed?: number) => void;
}

function fail(res: Response, status: number, message: string) {
  res.status(status).json({ error: { code: status, message } });
}

function parse<T extends z.ZodType>(schema: T, req: Request, res: Response): z.infer<T> | undefined {
  const parsed = schema.safeParse(req.body ?? {});
  if (parsed.success) return parsed.data;
  fail(res, 400, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return undefined;
}

function answer<T>(res: Response, outcome: Outcome<T>, status: number, body: (v: T) => unknown) {
  if (!outcome.ok) return fail(res, outcome.status, outcome.message);
  res.status(status).json(body(outcome.value));
}

const clientSchema = z.strictObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  redirect_uris: z.array(z.url()).min(1),
  name: z.string().min(1).optional(),
});
const consentSchema = z.strictObject({
  mode: z.enum(['page', 'auto']),
  account: z.email().optional(),
  grant: z.array(z.string()).optional(),
  deny: z.boolean().optional(),
});
const settingsSchema = z.strictObject({
  access_token_lifetime_s: z.number().int().min(1).max(86_400).optional(),
  rotate_refresh_tokens: z.boolean().optional(),
  // Calendar
  ...calendarSettingsFields,
});
const tokenSchema = z
  .strictObject({
    email: z.email(),
    scopes: z.array(z.string()).min(1),
    client_id: z.string().optional(),
    /** Also a refresh token, as after offline consent: the client (a registered one) can then refresh at /token. */
    offline: z.boolean().optional(),
  })
  .refine((t) => !t.offline || t.client_id, { message: 'offline tokens need the client_id that will refresh them' });

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

  router.get('/accounts', (_req, res) => res.json({ accounts: [...w().accounts.values()].map((a) => describeAccount(w(), a)) }));
  router.post('/accounts', (req, res) => {
    const spec = parse(accountSpecSchema, req, res);
    if (spec) answer(res, createAccount(w(), spec), 201, (a) => describeAccount(w(), a));
  });

  const withAccount =
    (handler: (world: World, req: Request, res: Response, account: NonNullable<ReturnType<typeof findAccount>>) => void) => (req: Request, res: Response) => {
      const account = findAccount(w(), String(req.params.email));
      if (!account) return fail(res, 404, `no sandbox account ${String(req.params.email)}`);
      handler(w(), req, res, account);
    };
  router.get(
    '/accounts/:email',
    withAccount((world, _req, res, account) => res.json(describeAccount(world, account))),
  );
  router.post(
    '/accounts/:email/events',
    withAccount((world, req, res, account) => {
      const spec = parse(eventsSpecSchema, req, res);
      if (spec) answer(res, addEvents(world, account, spec), 201, () => describeAccount(world, account));
    }),
  );
  router.post(
    '/accounts/:email/messages',
    withAccount((world, req, res, account) => {
      const spec = parse(messagesSpecSchema, req, res);
      if (spec) answer(res, addMessages(world, account, spec), 201, (ids) => ({ ids }));
    }),
  );
  router.post(
    '/accounts/:email/revoke',
    withAccount((world, _req, res, account) => {
      const grants = [...world.oauth.grants.values()].filter((g) => g.email === account.email);
      for (const g of grants) revokeGrant(world, g.id);
      res.json({ revoked_grants: grants.length });
    }),
  );
  router.post(
    '/accounts/:email/expire-tokens',
    withAccount((world, _req, res, account) => {
      let expired = 0;
      for (const t of world.oauth.accessTokens.values()) {
        if (t.email === account.email && t.expiresAt > world.clock.now()) {
          t.expiresAt = world.clock.now();
          expired++;
        }
      }
      res.json({ expired_access_tokens: expired });
    }),
  );

  router.post('/clients', (req, res) => {
    const c = parse(clientSchema, req, res);
    if (!c) return;
    w().oauth.clients.set(c.client_id, { clientId: c.client_id, clientSecret: c.client_secret, redirectUris: c.redirect_uris, name: c.name ?? c.client_id });
    res.status(201).json({ client_id: c.client_id, redirect_uris: c.redirect_uris });
  });
  router.put('/consent', (req, res) => {
    const c = parse(consentSchema, req, res);
    if (!c) return;
    w().oauth.consent = {
      mode: c.mode,
      ...(c.account ? { account: c.account.toLowerCase() } : {}),
      ...(c.grant ? { grant: c.grant.flatMap(parseScopeParam) } : {}),
      ...(c.deny ? { deny: true } : {}),
    };
    res.json(w().oauth.consent);
  });
  router.put('/settings', (req, res) => {
    const s = parse(settingsSchema, req, res);
    if (!s) return;
    if (s.access_token_lifetime_s !== undefined) w().oauth.accessTokenLifetimeS = s.access_token_lifetime_s;
    if (s.rotate_refresh_tokens !== undefined) w().oauth.rotateRefreshTokens = s.rotate_refresh_tokens;
    applyCalendarSettings(w(), s);
    res.json({
      access_token_lifetime_s: w().oauth.accessTokenLifetimeS,
      rotate_refresh_tokens: w().oauth.rotateRefreshTokens,
      ...describeCalendarSettings(w()),
    });
  });
  quotaControl(router, w, (res, message) => fail(res, 400, message));
  router.post('/tokens', (req, res) => {
    const t = parse(tokenSchema, req, res);
    if (!t) return;
    const account = findAccount(w(), t.email);
    if (!account) return fail(res, 404, `no sandbox account ${t.email}`);
    const scopes = t.scopes.flatMap(parseScopeParam);
    if (t.offline) {
      if (!w().oauth.clients.has(t.client_id!)) return fail(res, 404, `no registered client ${t.client_id}`);
      const grant = mintOfflineGrant(w(), t.client_id!, account.email, scopes);
      const expiresIn = Math.round((grant.expiresAt.getTime() - w().clock.now()) / 1000);
      return res
        .status(201)
        .json({ access_token: grant.accessToken, refresh_token: grant.refreshToken, expires_in: expiresIn, scope: scopes.join(' '), token_type: 'Bearer' });
    }
    const record = mintTestToken(w(), account.email, scopes, t.client_id);
    res.status(201).json({
      access_token: record.token,
      expires_in: Math.round((record.expiresAt - w().clock.now()) / 1000),
      scope: record.scopes.join(' '),
      token_type: 'Bearer',
    });
  });

  router.post('/faults', (req, res) => {
    const spec = parse(faultSpecSchema, req, res);
    if (spec) res.status(201).json(describeFault(addFault(w(), spec)));
  });
  router.get('/faults', (_req, res) => res.json({ faults: w().faults.rules.map(describeFault) }));
  router.delete('/faults', (_req, res) => {
    w().faults.rules = [];
    res.status(204).end();
  });
  router.delete('/faults/:id', (req, res) => {
    const before = w().faults.rules.length;
    w().faults.rules = w().faults.rules.filter((r) => r.id !== req.params.id);
    if (w().faults.rules.length === before) return fail(res, 404, `no fault ${req.params.id}`);
    res.status(204).end();
  });

  router.get('/requests', (req, res) => {
    const since = Number(req.query.since ?? 0);
    const log = w().requestLog;
    res.json({ requests: log.slice(Number.isInteger(since) && since > 0 ? since : 0), next: log.length });
  });
  router.delete('/requests', (_req, res) => {
    w().requestLog = [];
    res.status(204).end();
  });
  router.post('/clock', (req, res) => {
    const body = parse(
      z.strictObject({
        advance_s: z
          .number()
          .int()
          .min(1)
          .max(10 * 365 * 86_400),
      }),
      req,
      res,
    );
    if (!body) return;
    w().clock.advance(body.advance_s * 1000);
    res.json({ now: new Date(w().clock.now()).toISOString() });
  });
  router.get('/violations', (_req, res) => res.json({ violations: w().violations }));

  // How refresh tokens die (Testing mode, the 100-token limit, time-based access, Workspace policies).
  mountOAuthLifetimes(router, w, { parse, fail });

  router.use((_req: Request, res: Response) => fail(res, 404, 'unknown control endpoint; see the README (Google sandbox)'));
  return router;
}
