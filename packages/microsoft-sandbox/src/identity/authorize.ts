import express, { type Request, type Response, Router } from 'express';
import { ALPHABETS } from '../random';
import type { Person, Tenant, World } from '../world';
import { AAD, type AadError, aadBody } from './errors';
import { GRAPH_SCOPES, parseScopes } from './scopes';
import { type AppRegistration, consentKey } from './state';
import { type TenantPath, peopleFor, resolveTenant } from './tenants';

/**
 * GET /{tenant}/oauth2/v2.0/authorize (learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow):
 * an unknown tenant, client or redirect URI is answered on the sign-in page itself (never redirected to an
 * unverified URI); anything else wrong goes back to the redirect URI as `error` + `error_description` + `state`.
 * The consent screen is a small HTML page (or answered at once, consent mode `auto`).
 */

interface Pending {
  tenantPath: TenantPath;
  app: AppRegistration;
  redirectUri: string;
  state: string | undefined;
  graph: string[];
  oidc: string[];
  challenge: string | undefined;
  challengeMethod: 'S256' | 'plain';
  nonce: string | undefined;
  loginHint: string | undefined;
}

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function errorPage(res: Response, world: World, e: AadError) {
  const body = aadBody(world, e, undefined);
  res
    .status(400)
    .type('html')
    .send(
      `<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Sign in to your account</title><h1>Sorry, but we’re having trouble signing you in.</h1><p>${esc(body.error_description)}</p>`,
    );
}

export function redirectWith(res: Response, p: { redirectUri: string; state: string | undefined }, params: Record<string, string>) {
  const url = new URL(p.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (p.state !== undefined) url.searchParams.set('state', p.state);
  res.redirect(302, url.toString());
}

function redirectError(res: Response, world: World, p: Pending, e: AadError) {
  const body = aadBody(world, e, undefined);
  redirectWith(res, p, { error: e.error, error_description: body.error_description, ...(e.suberror ? { error_subcode: e.suberror } : {}) });
}

/** What the signed-in person ends up granting, or the error that stops them. */
function decide(world: World, p: Pending, person: Person, granted: string[]): { scopes: string[] } | AadError {
  const tenant = world.tenants.get(person.tenantId) as Tenant;
  const adminSet = tenant.adminConsent.get(p.app.clientId) ?? new Set<string>();
  const prior = world.identity.consents.get(consentKey(p.app.clientId, person.id)) ?? new Set<string>();
  const newlyAsked = granted.filter((s) => !adminSet.has(s) && !prior.has(s));
  // A scope only an admin may grant, or a tenant that turned user consent off: the user sees "Need admin
  // approval" (AADSTS90094) and can only go back to the app without consent.
  if (newlyAsked.some((s) => GRAPH_SCOPES[s]?.adminOnly) || (newlyAsked.length > 0 && tenant.userConsent === 'admin')) return AAD.adminConsentRequired();
  const all = new Set([...prior, ...granted]);
  world.identity.consents.set(consentKey(p.app.clientId, person.id), all);
  // v2.0 issues a token for every scope consented for the resource, not only those asked for this time.
  return { scopes: [...new Set([...all, ...adminSet])] };
}

function issueCode(world: World, res: Response, p: Pending, person: Person, scopes: string[]) {
  const code = `1.A${world.random.string(300, ALPHABETS.base64url)}`;
  world.identity.codes.set(code, {
    clientId: p.app.clientId,
    userId: person.id,
    scopes: [...scopes, ...p.oidc],
    redirectUri: p.redirectUri,
    challenge: p.challenge,
    challengeMethod: p.challengeMethod,
    nonce: p.nonce,
    issuedAt: world.clock.now(),
    redeemed: false,
  });
  redirectWith(res, p, { code });
}

function finish(world: World, res: Response, p: Pending, person: Person | undefined, granted: string[] | 'decline') {
  if (!person)
    return errorPage(res, world, { status: 400, error: 'invalid_request', code: 50034, message: 'The user account does not exist in the directory.' });
  if (person.disabled) return redirectError(res, world, p, AAD.userDisabled());
  if (granted === 'decline') return redirectError(res, world, p, AAD.userDeclined());
  const decided = decide(world, p, person, granted);
  if ('code' in decided) return redirectError(res, world, p, decided);
  issueCode(world, res, p, person, decided.scopes);
}

function consentPage(res: Response, ctx: string, p: Pending, people: Person[]) {
  const options = people.map(
    (x) =>
      `<option value="${esc(x.id)}"${p.loginHint?.toLowerCase() === x.userPrincipalName.toLowerCase() ? ' selected' : ''}>${esc(x.displayName)} (${esc(x.userPrincipalName)})</option>`,
  );
  const boxes = p.graph.map((s) => `<label><input type=checkbox name=scope value="${esc(s)}" checked> ${esc(s)}</label><br>`);
  res.type('html').send(`<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Permissions requested</title>
<h1>Permissions requested</h1><p>${esc(p.app.name)} wants to:</p>
<form method=post action="authorize/consent"><input type=hidden name=ctx value="${esc(ctx)}">
<label>Account <select name=account>${options.join('')}</select></label><br>${boxes.join('')}
<button name=action value=accept>Accept</button> <button name=action value=cancel>Cancel</button></form>`);
}

export function authorizeRoutes(getWorld: () => World): Router {
  const router = Router();
  const pending = new Map<string, Pending>();

  router.get('/:tenant/oauth2/v2.0/authorize', (req: Request, res: Response) => {
    const world = getWorld();
    const q = req.query as Record<string, string | undefined>;
    const tenantPath = resolveTenant(world, String(req.params.tenant));
    if (tenantPath.kind === 'unknown') return errorPage(res, world, AAD.tenantNotFound(tenantPath.name));
    const app = q.client_id ? world.identity.apps.get(q.client_id) : undefined;
    if (!q.client_id) return errorPage(res, world, AAD.missingParameter('client_id'));
    if (!app) return errorPage(res, world, AAD.unknownClient(q.client_id, String(req.params.tenant)));
    const redirectUri = q.redirect_uri ?? app.redirectUris[0] ?? '';
    if (!app.redirectUris.includes(redirectUri)) return errorPage(res, world, AAD.redirectMismatch(redirectUri, app.clientId));
    const base = { redirectUri, state: q.state };
    if (q.response_type !== 'code') {
      const e: AadError = {
        status: 400,
        error: 'unsupported_response_type',
        code: 900144,
        message: "The request body must contain the following parameter: 'response_type'.",
      };
      return redirectWith(res, base, { error: e.error, error_description: aadBody(world, e, undefined).error_description });
    }
    const scopes = parseScopes(q.scope ?? '');
    const scopeError = !q.scope ? AAD.missingParameter('scope') : !scopes.ok ? AAD.badScope(scopes.unknown) : undefined;
    if (scopeError || !scopes.ok)
      return redirectWith(res, base, { error: 'invalid_scope', error_description: aadBody(world, scopeError!, undefined).error_description });
    const method = q.code_challenge_method ?? 'plain';
    if (method !== 'S256' && method !== 'plain')
      return redirectWith(res, base, { error: 'invalid_request', error_description: aadBody(world, AAD.pkceMissing(), undefined).error_description });
    const graph = scopes.defaultScope ? [...new Set([...scopes.graph, ...app.permissions])] : scopes.graph.length ? scopes.graph : ['User.Read'];
    const p: Pending = {
      tenantPath,
      app,
      redirectUri,
      state: q.state,
      graph,
      oidc: scopes.oidc,
      challenge: q.code_challenge,
      challengeMethod: method,
      nonce: q.nonce,
      loginHint: q.login_hint,
    };
    const people = peopleFor(world, tenantPath);
    if (people.length === 0)
      return errorPage(res, world, {
        status: 400,
        error: 'invalid_request',
        code: 50020,
        message:
          'User account from identity provider does not exist in tenant and cannot access the application. (The Microsoft sandbox emulates work or school accounts only: /consumers signs in nobody.)',
      });
    const policy = world.identity.consent;
    if (policy.mode === 'auto') {
      const person = policy.account ? people.find((x) => x.userPrincipalName.toLowerCase() === policy.account!.toLowerCase()) : people[0];
      const granted = policy.grant ? graph.filter((s) => policy.grant!.some((g) => g.toLowerCase() === s.toLowerCase())) : graph;
      return finish(world, res, p, person, policy.deny ? 'decline' : granted);
    }
    const ctx = world.random.string(32, ALPHABETS.alnum);
    // Consent pages left unanswered are not kept forever: the oldest goes once a thousand wait.
    if (pending.size >= 1000) pending.delete(pending.keys().next().value!);
    pending.set(ctx, p);
    consentPage(res, ctx, p, people);
  });

  router.post('/:tenant/oauth2/v2.0/authorize/consent', express.urlencoded({ extended: false, limit: '16kb' }), (req, res) => {
    const world = getWorld();
    const body = req.body as Record<string, string | string[] | undefined>;
    const p = typeof body.ctx === 'string' ? pending.get(body.ctx) : undefined;
    if (!p) return errorPage(res, world, AAD.malformedGrant());
    pending.delete(body.ctx as string);
    const person = typeof body.account === 'string' ? peopleFor(world, p.tenantPath).find((x) => x.id === body.account) : undefined;
    const chosen = ([] as string[]).concat(body.scope ?? []).filter((s) => p.graph.includes(s));
    finish(world, res, p, person, body.action === 'accept' ? chosen : 'decline');
  });
  return router;
}
