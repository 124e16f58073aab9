import type { RequestHandler } from 'express';
import { plainPage, redirect, writeDocument } from '../../console/html';
import { sessionCookie } from '../../console/sessions';
import type { AdminPrincipal } from '../../auth/admin-access';
import type { Response } from 'express';
import { requestLogger } from '../../http/request-context';
import { type ConsoleDeps, postedFromHere } from './deps';
import { SIGN_IN_HELP } from './sign-in-page';

const refuse = (deps: ConsoleDeps, res: Response, status: number, why: string) =>
  writeDocument(res, status, plainPage(deps.assets, 'Cannot sign in', `<p class="state error">${why}</p>${SIGN_IN_HELP}`));

/** Starts a session for `principal`, sets the cookie, and sends the browser to its home page. */
export async function startSession(deps: ConsoleDeps, res: Response, principal: AdminPrincipal, method: 'link' | 'jwt'): Promise<void> {
  const { token } = await deps.sessions.start(principal, method);
  requestLogger(deps.logger, res).info(
    { principal: principal.kind, ...(principal.kind === 'customer' ? { customer_id: principal.customerId } : {}), method },
    'console session started',
  );
  const home = principal.kind === 'admin' ? '/admin' : `/admin/customers/${principal.customerId}`;
  redirect(res, home, ['Set-Cookie', sessionCookie(token, deps.sessions.settings.maxS, deps.secure)]);
}

/** POST /admin/sign-in (form: token) — redeems a one-time sign-in link: once, within its lifetime. */
export function signInRoute(deps: ConsoleDeps): RequestHandler {
  return async (req, res) => {
    if (!postedFromHere(req, deps.origin)) return refuse(deps, res, 403, "Sign-in forms are accepted from this Hub's own pages only.");
    const token = typeof req.body?.token === 'string' ? req.body.token : '';
    const check = deps.links.verify(token);
    if (!check.ok)
      return refuse(
        deps,
        res,
        check.problem === 'expired' ? 410 : 400,
        check.problem === 'expired' ? 'This sign-in link has expired.' : 'This is not a valid sign-in link.',
      );
    if (!(await deps.sessions.redeemLink(check.link.linkHash, check.link.expiresAt))) {
      return refuse(deps, res, 410, 'This sign-in link was used already: each link signs in once.');
    }
    await startSession(deps, res, check.link.principal, 'link');
  };
}
