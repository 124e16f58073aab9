import type { RequestHandler } from 'express';
import type { ProviderId } from '../../core/capabilities';
import { sendPage, sendRedirect } from '../../http/pages';
import type { ConnectFlow } from '../../integrations/connect-flow';
import { clearBrowserCookie, readBrowserCookie } from './browser-cookie';

/**
 * `GET /integrations/{provider}/callback?code&state` (or `?error&state`, or Microsoft's `?admin_consent=True&tenant`):
 * where the vendor sends the person back.
 */
export function connectCallbackRoute(deps: { flow: ConnectFlow; secureCookies: boolean }, provider: ProviderId): RequestHandler {
  return async (req, res) => {
    const state = req.query.state;
    const attempt = typeof state === 'string' && state.length <= 4096 ? state : undefined;
    const outcome = await deps.flow.complete({ ...req.query }, attempt && readBrowserCookie(req, attempt), provider);
    // The attempt is over, whichever way it ended.
    const cookies = attempt ? [clearBrowserCookie(attempt, deps.secureCookies, provider)] : [];
    if (outcome.kind === 'page') return sendPage(res, outcome.page, cookies);
    sendRedirect(res, outcome.url, cookies);
  };
}
