import type { IntegrationSpec } from '../../core/provider';
import { MICROSOFT_INTEGRATIONS } from '../../providers/microsoft/catalog';

/**
 * Every integration the Hub offers, with its provider and capability, in the order a refusal names them: what
 * src/core/provider-choice.ts chooses among. Google's specs in src/integrations predate providers and capabilities
 * (they know only ids and scopes), so their provider and capability are stated here.
 */
export const OFFERED_INTEGRATIONS: readonly Pick<IntegrationSpec, 'id' | 'provider' | 'capability'>[] = [
  { id: 'google_calendar', provider: 'google', capability: 'calendar' },
  { id: 'google_gmail', provider: 'google', capability: 'mail' },
  ...MICROSOFT_INTEGRATIONS.map(({ id, provider, capability }) => ({ id, provider, capability })),
];
