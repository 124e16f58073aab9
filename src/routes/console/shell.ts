import type { RequestHandler } from 'express';
import { plainPage, redirect, shellPage, writeDocument } from '../../console/html';
import { type ConsoleDeps, sessionOf } from './deps';

/**
 * GET /admin, /admin/customers/{id}, /admin/activity, /admin/policies, /admin/overview — the signed-in shell;
 * without a live session, the sign-in page. The page's module reads everything it shows from the admin API, with
 * this session's cookie: what a customer-scoped session may see is decided there, not here.
 */
export function shellRoute(deps: ConsoleDeps): RequestHandler {
  return async (req, res) => {
    const current = await sessionOf(req, deps.sessions);
    if (current === null) return redirect(res, '/admin/sign-in');
    if (deps.assets === null) {
      writeDocument(res, 503, plainPage(null, 'Console not built', "<p>The console's browser files are missing: run <code>npm run build</code>.</p>"));
      return;
    }
    writeDocument(res, 200, shellPage(deps.assets, current.session, req.path.replace(/\/+$/, '') || '/admin', deps.vocabulary));
  };
}
