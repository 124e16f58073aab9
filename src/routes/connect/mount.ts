import type { Express } from 'express';
import type { ConnectFlow } from '../../integrations/connect-flow';
import { connectCallbackRoute } from './callback';
import { connectStartRoute } from './start';

/** The browser side of connecting Google: a signed connect link in, Google's consent, the callback back. */
export function mountConnectFlow(app: Express, deps: { flow: ConnectFlow; secureCookies: boolean }): void {
  app.get('/integrations/google/connect', connectStartRoute(deps));
  app.get('/integrations/google/callback', connectCallbackRoute(deps));
}
