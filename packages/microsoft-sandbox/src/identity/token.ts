import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response, Router } from 'express';
import type { Person, World } from '../world';
import { AAD, type AadError, aadTimestamp, sendAadError } from './errors';
import { parseScopes } from './scopes';
import { type AppRegistration, consentKey } from './state';
import { baseUrlOf, resolveTenant } from './tenants';
import { clientInfo, mintAccessToken, mintIdToken, mintRefreshToken } from './tokens';

/**
 * POST /{tenant}/oauth2/v2.0/token: the authorization_code and refresh_token grants
 * (v2-oauth2-auth-code-flow#redeem-a-code-for-an-access-token, #refresh-the-access-token). Every refresh returns a
 * new refresh token ("Refresh tokens replace themselves with a fresh token upon every use", refresh-tokens); the
 * old one is not revoked by that ("you're expected to discard the old refresh token"), but it still dies with the
 * grant: after 90 days without use, a password change or session revocation (TokensValidFrom), a disabled
 * account, or a withdrawn consent.
 */

const safeEqual = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function authenticateClient(world: World, req: Request, body: Record<string, string>): AppRegistration | AadError {
  let clientId = body.client_id;
  let secret = body.client_secret;
  const basic = /^Basic (.+)$/i.exec(req.get('authorization') ?? '');
  if (basic) {
    const [id, s] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    clientId = decodeURIComponent(id ?? '');
    secret = decodeURIComponent(s ?? '');
  }
  if (!clientId) return AAD.missingParameter('client_id');
  const app = world.identity.apps.get(clientId);
  if (!app) return AAD.unknownClient(clientId, String(req.params.tenant));
  if (app.secret !== undefined) {
    if (!secret) return AAD.missingSecret();
    if (!safeEqual(secret, app.secret)) return AAD.badSecret(clientId);
  }
  return app;
}

/** Checks that hold for the person behind any grant, code or refresh token alike. */
function personProblem(person: Person | undefined, issuedAt: number): AadError | undefined {
  if (!person) return AAD.malformedGrant();
  if (person.disabled) return AAD.userDisabled();
  if (issuedAt < person.tokensValidFrom) return AAD.revoked(aadTimestamp(issuedAt), aadTimestamp(person.tokensValidFrom), person.invalidatedBy);
  return undefined;
}

function answer(world: World, req: Request, res: Response, app: AppRegistration, person: Person, scopes: string[], nonce: string | undefined) {
  const tenant = world.tenants.get(person.tenantId)!;
  const access = mintAccessToken(world, app, person, scopes);
  const oidc = scopes.filter((s) => /^[a-z_]+$/.test(s));
  const graph = scopes.filter((s) => !oidc.includes(s));
  res.set('Cache-Control', 'no-store, no-cache').json({
    token_type: 'Bearer',
    // Graph's scopes come back bare, with the OIDC ones (offline_access is never echoed as a scope of the token).
    scope: [...graph, ...oidc.filter((s) => s !== 'offline_access')].join(' '),
    expires_in: access.lifetimeS,
    ext_expires_in: access.lifetimeS,
    access_token: access.token,
    ...(oidc.includes('offline_access') ? { refresh_token: mintRefreshToken(world, app, person, scopes) } : {}),
    ...(oidc.includes('openid') ? { id_token: mintIdToken(world, baseUrlOf(req), app, person, tenant, nonce) } : {}),
    client_info: clientInfo(person),
  });
}

function redeemCode(world: World, req: Request, res: Response, app: AppRegistration, body: Record<string, string>): AadError | undefined {
  if (!body.code) return AAD.missingParameter('code');
  const code = world.identity.codes.get(body.code);
  if (!code) return AAD.malformedGrant();
  if (code.clientId !== app.clientId) return AAD.grantClientMismatch();
  if (code.redeemed) return AAD.codeRedeemed();
  if (world.clock.now() - code.issuedAt > world.identity.lifetimes.authCodeS * 1000) return AAD.codeExpired();
  if (body.redirect_uri !== code.redirectUri) return AAD.redirectChanged();
  if (code.challenge !== undefined) {
    if (!body.code_verifier) return AAD.pkceMissing();
    const derived = code.challengeMethod === 'S256' ? createHash('sha256').update(body.code_verifier).digest('base64url') : body.code_verifier;
    if (!safeEqual(derived, code.challenge)) return AAD.pkceMismatch();
  }
  const person = world.people.get(code.userId);
  const problem = personProblem(person, code.issuedAt);
  if (problem) return problem;
  code.redeemed = true;
  answer(world, req, res, app, person!, code.scopes, code.nonce);
  return undefined;
}

function redeemRefresh(world: World, req: Request, res: Response, app: AppRegistration, body: Record<string, string>): AadError | undefined {
  if (!body.refresh_token) return AAD.missingParameter('refresh_token');
  const grant = world.identity.refresh.get(body.refresh_token);
  if (!grant) return AAD.malformedGrant();
  if (grant.clientId !== app.clientId) return AAD.grantClientMismatch();
  const now = world.clock.now();
  if (now - grant.issuedAt > world.identity.lifetimes.refreshInactiveS * 1000)
    return AAD.inactive(new Date(grant.issuedAt).toISOString().replace('Z', '0000Z'));
  const person = world.people.get(grant.userId);
  const problem = personProblem(person, grant.issuedAt);
  if (problem) return problem;
  const consented = world.identity.consents.get(consentKey(app.clientId, person!.id));
  const tenant = world.tenants.get(person!.tenantId)!;
  const admin = tenant.adminConsent.get(app.clientId) ?? new Set<string>();
  if (grant.consentWithdrawn || (!consented && admin.size === 0)) return AAD.consentRequired(app.clientId, app.name);
  const asked = parseScopes(body.scope ?? '');
  if (!asked.ok) return AAD.badScope(asked.unknown);
  const held = new Set([...(consented ?? []), ...admin]);
  // Asking for a scope nobody consented to cannot be done silently: consent_required (AADSTS65001).
  if (asked.graph.some((s) => !held.has(s))) return AAD.consentRequired(app.clientId, app.name);
  const oidc = grant.scopes.filter((s) => /^[a-z_]+$/.test(s));
  answer(world, req, res, app, person!, [...held, ...oidc], undefined);
  return undefined;
}

export function tokenRoutes(getWorld: () => World): Router {
  const router = Router();
  router.post('/:tenant/oauth2/v2.0/token', express.urlencoded({ extended: false, limit: '64kb' }), (req, res) => {
    const world = getWorld();
    const correlation = req.get('client-request-id');
    const tenantPath = resolveTenant(world, String(req.params.tenant));
    if (tenantPath.kind === 'unknown') return sendAadError(world, res, AAD.tenantNotFound(tenantPath.name), correlation);
    const body = (req.body ?? {}) as Record<string, string>;
    if (!body.grant_type) return sendAadError(world, res, AAD.missingParameter('grant_type'), correlation);
    const app = authenticateClient(world, req, body);
    if ('code' in app) return sendAadError(world, res, app, correlation);
    res.locals.client = app.clientId;
    let failure: AadError | undefined;
    if (body.grant_type === 'authorization_code') failure = redeemCode(world, req, res, app, body);
    else if (body.grant_type === 'refresh_token') failure = redeemRefresh(world, req, res, app, body);
    else failure = AAD.unsupportedGrant(body.grant_type);
    if (failure) sendAadError(world, res, failure, correlation);
  });
  return router;
}
