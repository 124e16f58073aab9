import type { ConnectLinks } from './connect-links';
import type { IntegrationId } from '../core/integrations';

export interface SetupTarget {
  customerId: string;
  userId: string | null;
  integration: IntegrationId;
}

export type SetupUrlFor = (target: SetupTarget) => string;

/**
 * The single source of every `setup_url` the Hub hands out (errors and the status endpoint): a signed connect
 * link for exactly this customer, end user and integration, which a person can open to connect it. Links handed
 * to agents carry no return_url (only admins choose where a person lands afterwards), live HUB_SETUP_URL_TTL_S
 * (shorter than an admin's link: they pass through agents, transcripts and chats), and can never replace the
 * account of a connection with another one — only reconnect it, or connect it for the first time.
 */
export function createSetupUrlFor(links: ConnectLinks): SetupUrlFor {
  return (target) => links.create({ ...target, returnUrl: null, origin: 'setup', replace: false }).url;
}
