import type { RequestHandler } from 'express';
import { csrfMatches, readSessionCookie, type Sessions } from '../console/sessions';
import { HubFailure, hubError } from '../core/errors';
import { ADMIN_REALM } from './admin-jwt';
import { requestLogger } from '../http/request-context';
import { storeUnavailable } from '../integrations/connections';
import type { Logger } from '../logger';

export const CSRF_HEADER = 'x-csrf-token';

/**
 * The admin API's authentication: a Bearer admin JWT (an admin's own back-end, adminJwtAuth), or — with no
 * Authorization header — the admin console's session cookie. The console therefore calls exactly the API every
 * other admin client calls, and the same `mayActOn` checks in each route confine a customer-scoped session to
 * its customer. A cookie-authenticated request must also carry the session's CSRF token in `X-CSRF-Token`
 * (every method, not only state changes: one rule, and a page never needs to read the API without it); the
 * SameSite=Strict cookie is the first line, the token the second (OWASP CSRF cheat sheet, "defense in depth").
 */
export function adminApiAuth(jwtAuth: RequestHandler, sessions: Sessions, logger: Logger): RequestHandler {
  const ended = new HubFailure(
    hubError('UNAUTHORIZED', 'The console session has ended (signed out, idle too long, or past its lifetime); sign in again', {
      headers: { 'WWW-Authenticate': `Bearer realm="${ADMIN_REALM}"` },
    }),
  );
  const noCsrf = new HubFailure(hubError('FORBIDDEN', "A console request must carry the session's CSRF token in the X-CSRF-Token header"));
  return (req, res, next) => {
    const cookie = req.headers.authorization === undefined ? readSessionCookie(req.headers.cookie) : undefined;
    if (cookie === undefined) {
      jwtAuth(req, res, next);
      return;
    }
    sessions.resolve(cookie).then(
      (session) => {
        if (session === null) return next(ended);
        const header = req.headers[CSRF_HEADER];
        if (!csrfMatches(session, typeof header === 'string' ? header : undefined)) return next(noCsrf);
        res.locals.admin = session.principal;
        next();
      },
      (err: unknown) => {
        try {
          next(new HubFailure(storeUnavailable(err, requestLogger(logger, res))));
        } catch (bug) {
          next(bug);
        }
      },
    );
  };
}
