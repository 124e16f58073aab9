import type { RequestHandler } from 'express';
import { escapeHtml, plainPage, writeDocument } from '../../console/html';
import type { ConsoleDeps } from './deps';

export const SIGN_IN_HELP = `<p>Ask for a one-time sign-in link on the Hub's host: <code>npm run admin-login -- --admin</code>, or
<code>npm run admin-login -- --customer &lt;uuid&gt;</code> for one customer. A link works once, within ten minutes.</p>`;

const jwtForm = `<h2>Sign in with an admin token</h2>
<p>If your identity provider issues admin JWTs for this Hub (the tokens its admin API accepts), paste one.</p>
<form method="post" action="/admin/sign-in/jwt" class="stack"><label for="jwt">Admin JWT</label>
<textarea id="jwt" name="jwt" rows="4" required autocomplete="off" spellcheck="false"></textarea>
<button type="submit">Sign in with the token</button></form>`;

/**
 * GET /admin/sign-in[?token=…] — with a sign-in link's token: who it signs in as, and a button that redeems it
 * (a POST, so a link scanner or a browser's prefetch that only GETs the URL never uses it up). Without one:
 * how to get a link, and the admin-JWT form when the Hub verifies admin JWTs.
 */
export function signInPageRoute(deps: ConsoleDeps): RequestHandler {
  return (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : undefined;
    const note = req.query.signed_out === '1' ? '<p class="state" role="status">You are signed out.</p>' : '';
    if (token === undefined) {
      writeDocument(res, 200, plainPage(deps.assets, 'Sign in to the Hub console', `${note}${SIGN_IN_HELP}${deps.verifyAdminJwt ? jwtForm : ''}`));
      return;
    }
    const check = deps.links.verify(token);
    if (!check.ok) {
      const why = check.problem === 'expired' ? 'This sign-in link has expired.' : 'This is not a valid sign-in link.';
      writeDocument(res, check.problem === 'expired' ? 410 : 400, plainPage(deps.assets, 'Cannot sign in', `<p class="state error">${why}</p>${SIGN_IN_HELP}`));
      return;
    }
    const { principal } = check.link;
    const who = principal.kind === 'admin' ? 'a Hub admin (every customer)' : `customer <code>${escapeHtml(principal.customerId)}</code> only`;
    writeDocument(
      res,
      200,
      plainPage(
        deps.assets,
        'Sign in to the Hub console',
        `<p>This link signs you in as ${who}. It works once.</p>
<form method="post" action="/admin/sign-in"><input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit" autofocus>Sign in</button></form>`,
      ),
    );
  };
}
