import type { RequestHandler } from 'express';
import { sendPage, sendRedirect } from '../../http/pages';
import type { ConnectFlow } from '../../integrations/connect-flow';
import { browserCookie } from './browser-cookie';

/**
 * `GET /integrations/{google|microsoft}/connect?token=…`: a signed connect link, opened by a person, sent on to the
 * vendor of the link's integration.
 */
export function connectStartRoute(deps: { flow: ConnectFlow; secureCookies: boolean }): RequestHandler {
  return async (req, res) => {
    // req.ip honours HUB_TRUST_PROXY, so behind a load balancer it is the browser's address, not the balancer's.
    const outcome = await deps.flow.start(req.query.token, req.ip ?? '');
    if (outcome.kind === 'page') return sendPage(res, outcome.page);
    const { browser } = outcome;
    sendRedirect(res, outcome.url, browser ? [browserCookie(browser.state, browser.nonce, deps.secureCookies, browser.provider)] : []);
  };
}
