import type { RequestHandler } from 'express';
import { clearSessionCookie, csrfMatches } from '../../console/sessions';
import { CSRF_HEADER } from '../../auth/admin-session-auth';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { sendJson } from '../../http/respond';
import { type ConsoleDeps, sessionOf } from './deps';

/** POST /admin/sign-out — ends the session (its row is deleted) and clears the cookie; needs the CSRF header. */
export function signOutRoute(deps: ConsoleDeps): RequestHandler {
  return async (req, res) => {
    const current = await sessionOf(req, deps.sessions);
    const clear = ['Set-Cookie', clearSessionCookie(deps.secure)];
    if (current === null) {
      sendJson(res, 200, { signed_out: true }, clear); // nothing to end: the browser's cookie goes all the same
      return;
    }
    const header = req.headers[CSRF_HEADER];
    if (!csrfMatches(current.session, typeof header === 'string' ? header : undefined)) {
      sendError(res, hubError('FORBIDDEN', "Signing out needs the session's CSRF token in the X-CSRF-Token header"));
      return;
    }
    await deps.sessions.end(current.token);
    sendJson(res, 200, { signed_out: true }, clear);
  };
}
