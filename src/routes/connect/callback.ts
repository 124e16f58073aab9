import type { RequestHandler } from 'express';
import { sendPage, sendRedirect } from '../../http/pages';
import type { ConnectFlow } from '../../integrations/connect-flow';
import { clearBrowserCookie, readBrowserCookie } from './browser-cookie';

/** `GET /integrations/google/callback?code&state` (or `?error&state`): where Google sends the person back. */
export function connectCallbackRoute(deps: { flow: ConnectFlow; secureCookies: boolean }): RequestHandler {
  return async (req, res) => {
    const { state, code, error } = req.query;
    const attempt = typeof state === 'string' && state.length <= 4096 ? state : undefined;
    const outcome = await deps.flow.complete({ state, code, error }, attempt && readBrowserCookie(req, attempt));
    // The attempt is over, whichever way it ended.
    const cookies = attempt ? [clearBrowserCookie(attempt, deps.secureCookies)] : [];
    if (outcome.kind === 'page') return sendPage(res, outcome.page, cookies);
    sendRedirect(res, outcome.url, cookies);
  };
}
