import type { ProviderId } from '../core/capabilities';
import { OFFERED_INTEGRATIONS } from '../integrations/catalog';

/**
 * What the console's pages show of each integration the Hub offers, from the catalog itself so that a new vendor's
 * integration appears on the customer page, in the connect-link form and in the disconnect text without a console
 * change: its id, its capability, its name and its vendor's.
 */
export interface ConsoleIntegration {
  id: string;
  capability: string;
  provider: ProviderId;
  display_name: string;
  vendor: string;
}

/** The vendor's name as people know it; typed by ProviderId, so a new provider cannot ship without one. */
const VENDOR_NAMES: Readonly<Record<ProviderId, string>> = { google: 'Google', microsoft: 'Microsoft' };

export const CONSOLE_INTEGRATIONS: readonly ConsoleIntegration[] = OFFERED_INTEGRATIONS.map((spec) => ({
  id: spec.id,
  capability: spec.capability,
  provider: spec.provider,
  display_name: spec.displayName,
  vendor: VENDOR_NAMES[spec.provider],
}));
