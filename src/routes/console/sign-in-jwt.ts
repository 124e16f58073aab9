import type { RequestHandler } from 'express';
import { plainPage, writeDocument } from '../../console/html';
import { type ConsoleDeps, postedFromHere } from './deps';
import { startSession } from './sign-in';

/**
 * POST /admin/sign-in/jwt (form: jwt) — for deployments whose identity provider mints admin JWTs: the token is
 * verified exactly as the admin API verifies it (algorithm, iss, aud, iat/exp bounds; RS256 with
 * HUB_ADMIN_JWT_PUBLIC_KEY or HS256), and starts a session for whoever it speaks for. The session lives no longer
 * than the console's own limits, whatever the token's `exp`.
 */
export function signInJwtRoute(deps: ConsoleDeps): RequestHandler {
  return async (req, res) => {
    const refuse = (status: number, why: string) =>
      writeDocument(
        res,
        status,
        plainPage(deps.assets, 'Cannot sign in', `<p class="state error">${why}</p><p><a href="/admin/sign-in">Back to sign-in</a></p>`),
      );
    if (deps.verifyAdminJwt === null)
      return refuse(404, 'This Hub does not verify admin JWTs (neither HUB_ADMIN_JWT_SECRET nor HUB_ADMIN_JWT_PUBLIC_KEY is set).');
    if (!postedFromHere(req, deps.origin)) return refuse(403, "Sign-in forms are accepted from this Hub's own pages only.");
    const token = typeof req.body?.jwt === 'string' ? req.body.jwt.trim() : '';
    const check = deps.verifyAdminJwt(token);
    if (!check.ok) {
      const why = {
        expired: 'The token has expired.',
        no_access: 'The token grants no access (neither role hub_admin nor a customer_id).',
        lifetime: 'The token must carry iat and an exp within the allowed lifetime.',
        invalid: 'The token is invalid.',
      }[check.problem];
      return refuse(check.problem === 'no_access' ? 403 : 401, why);
    }
    await startSession(deps, res, check.principal, 'jwt');
  };
}
