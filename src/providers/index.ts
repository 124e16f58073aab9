import type { OutlookMailboxLimits, UpstreamConfig } from '../config';
import type { IntegrationId } from '../core/integrations';
import type { Logger } from '../logger';
import { type Upstream, type UpstreamDeps, createResilience } from '../resilience';
import type { GoogleClients } from './google/clients';
import type { ProviderPorts } from '../tools/types';
import { createGoogleCalendar } from './google/calendar';
import { createGmail } from './google/gmail';
import { googleVendor } from './google/resilience';
import { createGraphCalendar } from './microsoft/calendar';
import { createGraphMail } from './microsoft/mail-graph';
import { microsoftVendor } from './microsoft/resilience';

/**
 * The provider registry: which adapter serves a connection's integration. The composition root (src/app.ts)
 * hands it to the use case; tools only ever see the ports (src/core), never a provider.
 */
export function createProviderPorts(deps: {
  google: GoogleClients;
  /** Microsoft Graph's versioned root (HUB_MICROSOFT_GRAPH_URL, or the Microsoft sandbox's). */
  microsoft: { graphUrl: string };
}): ProviderPorts {
  const { graphUrl } = deps.microsoft;
  return {
    calendar(integration: IntegrationId, env) {
      if (integration === 'google_calendar') return createGoogleCalendar({ ...env, clients: deps.google });
      if (integration === 'outlook_calendar') return createGraphCalendar({ ...env, graphUrl });
      throw new Error(`no calendar adapter serves the integration ${integration}`);
    },
    mail(integration: IntegrationId, env) {
      if (integration === 'google_gmail') return createGmail({ ...env, clients: deps.google });
      if (integration === 'outlook_mail') return createGraphMail({ ...env, graphUrl });
      throw new Error(`no mail adapter serves the integration ${integration}`);
    },
  };
}

/**
 * The resilience layer for every vendor's calls: each integration guarded with its provider's profile (Outlook's
 * mailbox limits from the Microsoft section of the configuration).
 */
export const createUpstream = (config: UpstreamConfig, outlook: OutlookMailboxLimits, logger: Logger, deps: UpstreamDeps = {}): Upstream =>
  createResilience(config, [googleVendor(config), microsoftVendor(outlook)], logger, deps);
