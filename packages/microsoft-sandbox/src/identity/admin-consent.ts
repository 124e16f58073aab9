import express, { type Request, type Response, Router } from 'express';
import { ALPHABETS } from '../random';
import type { Person, Tenant, World } from '../world';
import { errorPage, esc, redirectWith } from './authorize';
import { AAD, type AadError, aadBody } from './errors';
import { parseScopes } from './scopes';
import type { AppRegistration } from './state';
import { type TenantPath, peopleFor, resolveTenant } from './tenants';

/**
 * GET /{tenant}/v2.0/adminconsent (learn.microsoft.com/entra/identity-platform/v2-admin-consent): an administrator
 * signs in and approves the requested delegated permissions for every user of their tenant. `client_id`,
 * `redirect_uri` (matched exactly) and `scope` are required; `state` comes back. Success returns
 * `admin_consent=True&tenant=…&scope=…&state=…`; an error carries `admin_consent=True` beside `error` and
 * `error_description` (the page's example: `error=consent_required`, AADSTS65004 when the admin declines).
 *
 * Where the page is silent the sandbox takes the harsher reported behaviour: `common` is refused ("Do not use
 * 'common'"; reported publicly to answer `invalid_request` asking for a `response_type`), and a person who is not
 * an administrator gets AADSTS90094 (admin approval required) rather than any consent.
 */

interface PendingAdminConsent {
  tenantPath: TenantPath;
  app: AppRegistration;
  redirectUri: string;
  state: string | undefined;
  scope: string;
  graph: string[];
}

function redirectError(res: Response, world: World, p: PendingAdminConsent, e: AadError) {
  redirectWith(res, p, { admin_consent: 'True', error: e.error, error_description: aadBody(world, e, undefined).error_description });
}

const declined = (): AadError => ({
  status: 400,
  error: 'consent_required',
  code: 65004,
  message: 'The resource owner or authorization server denied the request.',
});

function finish(world: World, res: Response, p: PendingAdminConsent, person: Person | undefined, accept: boolean) {
  if (!person)
    return errorPage(res, world, { status: 400, error: 'invalid_request', code: 50034, message: 'The user account does not exist in the directory.' });
  if (person.disabled) return redirectError(res, world, p, AAD.userDisabled());
  if (!accept) return redirectError(res, world, p, declined());
  if (!person.admin) return redirectError(res, world, p, AAD.adminConsentRequired());
  const tenant = world.tenants.get(person.tenantId) as Tenant;
  tenant.adminConsent.set(p.app.clientId, new Set([...(tenant.adminConsent.get(p.app.clientId) ?? []), ...p.graph]));
  redirectWith(res, p, { admin_consent: 'True', tenant: tenant.id, scope: p.scope });
}

export function adminConsentRoutes(getWorld: () => World): Router {
  const router = Router();
  const pending = new Map<string, PendingAdminConsent>();

  router.get('/:tenant/v2.0/adminconsent', (req: Request, res: Response) => {
    const world = getWorld();
    const q = req.query as Record<string, string | undefined>;
    const tenantPath = resolveTenant(world, String(req.params.tenant));
    if (tenantPath.kind === 'unknown') return errorPage(res, world, AAD.tenantNotFound(tenantPath.name));
    if (!q.client_id) return errorPage(res, world, AAD.missingParameter('client_id'));
    const app = world.identity.apps.get(q.client_id);
    if (!app) return errorPage(res, world, AAD.unknownClient(q.client_id, String(req.params.tenant)));
    if (!q.redirect_uri) return errorPage(res, world, AAD.missingParameter('redirect_uri'));
    if (!app.redirectUris.includes(q.redirect_uri)) return errorPage(res, world, AAD.redirectMismatch(q.redirect_uri, app.clientId));
    const base = { redirectUri: q.redirect_uri, state: q.state };
    if (tenantPath.kind === 'common') {
      const e: AadError = {
        status: 400,
        error: 'invalid_request',
        code: 900144,
        message: "The provided request must include a 'response_type' input parameter.",
      };
      return redirectWith(res, base, { admin_consent: 'True', error: e.error, error_description: aadBody(world, e, undefined).error_description });
    }
    const scopes = parseScopes(q.scope ?? '');
    if (!q.scope || !scopes.ok) {
      const e = !q.scope ? AAD.missingParameter('scope') : AAD.badScope(scopes.ok ? '' : scopes.unknown);
      return redirectWith(res, base, { admin_consent: 'True', error: e.error, error_description: aadBody(world, e, undefined).error_description });
    }
    const p: PendingAdminConsent = {
      tenantPath,
      app,
      ...base,
      scope: q.scope,
      graph: scopes.defaultScope ? [...new Set([...scopes.graph, ...app.permissions])] : scopes.graph,
    };
    const people = peopleFor(world, tenantPath);
    const policy = world.identity.consent;
    if (policy.mode === 'auto') {
      const person = policy.account ? people.find((x) => x.userPrincipalName.toLowerCase() === policy.account!.toLowerCase()) : people[0];
      return finish(world, res, p, person, !policy.deny);
    }
    const ctx = world.random.string(32, ALPHABETS.alnum);
    if (pending.size >= 1000) pending.delete(pending.keys().next().value!);
    pending.set(ctx, p);
    const options = people.map((x) => `<option value="${esc(x.id)}">${esc(x.displayName)} (${esc(x.userPrincipalName)})</option>`);
    res.type('html').send(`<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Permissions requested — accept for your organization</title>
<h1>Permissions requested</h1><p>${esc(app.name)} wants these permissions for everyone in your organization:</p><ul>${p.graph.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>
<form method=post action="adminconsent/consent"><input type=hidden name=ctx value="${esc(ctx)}">
<label>Administrator <select name=account>${options.join('')}</select></label><br>
<button name=action value=accept>Accept</button> <button name=action value=cancel>Cancel</button></form>`);
  });

  router.post('/:tenant/v2.0/adminconsent/consent', express.urlencoded({ extended: false, limit: '16kb' }), (req, res) => {
    const world = getWorld();
    const body = req.body as Record<string, string | undefined>;
    const p = typeof body.ctx === 'string' ? pending.get(body.ctx) : undefined;
    if (!p) return errorPage(res, world, AAD.malformedGrant());
    pending.delete(body.ctx!);
    const person = typeof body.account === 'string' ? peopleFor(world, p.tenantPath).find((x) => x.id === body.account) : undefined;
    finish(world, res, p, person, body.action === 'accept');
  });
  return router;
}
