import type { Express } from 'express';
import { PROVIDER_IDS } from '../../core/capabilities';
import type { ConnectFlow } from '../../integrations/connect-flow';
import { connectCallbackRoute } from './callback';
import { connectStartRoute } from './start';

/**
 * The browser side of connecting, per provider: a signed connect link in, the vendor's consent, the callback back
 * (`/integrations/google/…`, `/integrations/microsoft/…`: the redirect URIs registered with each vendor).
 */
export function mountConnectFlow(app: Express, deps: { flow: ConnectFlow; secureCookies: boolean }): void {
  for (const provider of PROVIDER_IDS) {
    app.get(`/integrations/${provider}/connect`, connectStartRoute(deps));
    app.get(`/integrations/${provider}/callback`, connectCallbackRoute(deps, provider));
  }
}
