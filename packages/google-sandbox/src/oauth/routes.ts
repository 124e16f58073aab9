import express, { type Request, type Response, Router } from 'express';
import { sendResult } from '../api/dispatch';
import type { World } from '../world';
import { adminPolicyPage, approve, approveSilently, checkAuthorizationRequest, denyUrl, promptNone } from './authorize';
import { consentPage, errorPage } from './consent-page';
import { resolveAccessToken, revokeGrant } from './tokens';
import { oauthError, subjectOf, tokenEndpoint } from './token';

/** Google's OAuth 2.0 endpoints, at Google's paths, so OAuth2Client works with only its `endpoints` changed. */

const form = express.urlencoded({ extended: false, limit: '64kb' });
const json = express.json({ limit: '64kb' });

const fields = (req: Request): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const source of [req.query, req.body ?? {}] as Record<string, unknown>[]) {
    for (const [k, v] of Object.entries(source)) if (typeof v === 'string') out[k] = v;
  }
  return out;
};

const noStore = (res: Response) => res.set({ 'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate', Pragma: 'no-cache' });

function html(res: Response, status: number, page: string) {
  res.status(status).type('text/html; charset=utf-8').send(page);
}

export function oauthRoutes(getWorld: () => World, knownScopes: Set<string>): Router {
  const router = Router();

  router.get('/o/oauth2/v2/auth', (req, res) => {
    res.locals.operation = 'oauth.authorize';
    const world = getWorld();
    const checked = checkAuthorizationRequest(world, knownScopes, req.query as Record<string, unknown>);
    if (!checked.ok) return html(res, 400, errorPage(checked.error, checked.description));
    const { pending } = checked;
    if (promptNone(req.query as Record<string, unknown>)) return res.redirect(302, approveSilently(world, pending));
    const policy = world.oauth.consent;
    if (policy.mode === 'auto') {
      if (policy.deny) return res.redirect(302, denyUrl(pending));
      const email = policy.account ?? pending.loginHint ?? (world.accounts.size === 1 ? [...world.accounts.values()][0]!.email : undefined);
      if (!email) return html(res, 400, errorPage('account_required', 'Auto-consent needs an account: set it on POST /_sandbox/consent or pass login_hint.'));
      const blocked = adminPolicyPage(world, email);
      if (blocked) return html(res, 400, blocked);
      return res.redirect(302, approve(world, pending, email, policy.grant ?? pending.scopes));
    }
    world.oauth.pending.set(pending.id, pending);
    noStore(res);
    html(res, 200, consentPage(pending, [...world.accounts.values()]));
  });

  router.post('/o/oauth2/v2/auth/decision', form, (req, res) => {
    res.locals.operation = 'oauth.consent';
    const world = getWorld();
    const f = fields(req);
    const pending = f.request ? world.oauth.pending.get(f.request) : undefined;
    if (!pending || pending.expiresAt <= world.clock.now()) {
      return html(res, 400, errorPage('invalid_request', 'This consent request has expired. Start again from the application.'));
    }
    world.oauth.pending.delete(pending.id);
    if (f.decision !== 'allow' || !f.account) return res.redirect(302, denyUrl(pending));
    const blocked = adminPolicyPage(world, f.account);
    if (blocked) return html(res, 400, blocked);
    const body = req.body as Record<string, unknown>;
    const chosen = Array.isArray(body.scope) ? body.scope.map(String) : typeof body.scope === 'string' ? [body.scope] : [];
    res.redirect(302, approve(world, pending, f.account, chosen));
  });

  router.post('/token', form, json, (req, res) => {
    res.locals.operation = 'oauth.token';
    noStore(res);
    sendResult(res, tokenEndpoint(getWorld(), fields(req), req.get('authorization')));
  });

  const revoke = (req: Request, res: Response) => {
    res.locals.operation = 'oauth.revoke';
    const world = getWorld();
    const token = fields(req).token ?? '';
    const grantId = world.oauth.refreshTokens.get(token)?.grantId ?? resolveAccessToken(world, token)?.grantId;
    if (!grantId) return sendResult(res, oauthError(400, 'invalid_token', 'Token expired or revoked'));
    revokeGrant(world, grantId);
    sendResult(res, { status: 200, body: {} });
  };
  router.post('/revoke', form, revoke);
  router.get('/o/oauth2/revoke', revoke); // the legacy GET form Google still serves

  const tokeninfo = (req: Request, res: Response) => {
    res.locals.operation = 'oauth.tokeninfo';
    const world = getWorld();
    const f = fields(req);
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const record = resolveAccessToken(world, f.access_token ?? bearer ?? '');
    if (!record) return sendResult(res, oauthError(400, 'invalid_token', 'Invalid Value'));
    const expiresIn = Math.max(0, Math.floor((record.expiresAt - world.clock.now()) / 1000));
    sendResult(res, {
      status: 200,
      body: {
        azp: record.clientId,
        aud: record.clientId,
        sub: subjectOf(record.email),
        scope: record.scopes.join(' '),
        exp: String(Math.floor(record.expiresAt / 1000)),
        expires_in: String(expiresIn),
        email: record.email,
        email_verified: 'true',
        access_type: record.offline ? 'offline' : 'online',
      },
    });
  };
  router.get('/tokeninfo', tokeninfo);
  router.post('/tokeninfo', form, tokeninfo);

  router.get('/oauth2/v3/certs', (_req, res) => {
    const { kid, publicKey } = getWorld().oauth.signing;
    res.json({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
  });
  router.get('/oauth2/v1/certs', (_req, res) => {
    const { kid, publicKey } = getWorld().oauth.signing;
    res.json({ [kid]: publicKey.export({ format: 'pem', type: 'spki' }) });
  });
  return router;
}
