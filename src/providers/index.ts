import type { IntegrationId } from '../core/integrations';
import type { GoogleClients } from './google/clients';
import type { ProviderPorts } from '../tools/types';
import { createGoogleCalendar } from './google/calendar';
import { createGmail } from './google/gmail';

/**
 * The provider registry: which adapter serves a connection's integration. The composition root (src/app.ts)
 * hands it to the use case; tools only ever see the ports (src/core), never a provider.
 */
export function createProviderPorts(deps: { google: GoogleClients }): ProviderPorts {
  return {
    calendar(integration: IntegrationId, env) {
      if (integration === 'google_calendar') return createGoogleCalendar({ ...env, clients: deps.google });
      throw new Error(`no calendar adapter serves the integration ${integration}`);
    },
    mail(integration: IntegrationId, env) {
      if (integration === 'google_gmail') return createGmail({ ...env, clients: deps.google });
      throw new Error(`no mail adapter serves the integration ${integration}`);
    },
  };
}
