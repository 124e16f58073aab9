import type { IntegrationId } from '../core/integrations';
import type { IntegrationSpec } from '../core/provider';
import { GOOGLE_INTEGRATIONS, GOOGLE_SCOPE_PREFIX } from '../providers/google/catalog';
import { MICROSOFT_INTEGRATIONS } from '../providers/microsoft/catalog';

/**
 * Every integration the Hub offers, with its provider, its capability and what it asks for on connect, by id. Each
 * provider states its own (src/providers/<vendor>/catalog.ts); this is where the Hub's features look them up.
 */

export type { IntegrationSpec } from '../core/provider';
export { googleScope } from '../providers/google/catalog';

/** In INTEGRATION_IDS order: the order in which a refusal names the integrations that would do. */
export const OFFERED_INTEGRATIONS: readonly IntegrationSpec[] = [...GOOGLE_INTEGRATIONS, ...MICROSOFT_INTEGRATIONS];

export const INTEGRATIONS: Readonly<Record<IntegrationId, IntegrationSpec>> = Object.fromEntries(OFFERED_INTEGRATIONS.map((spec) => [spec.id, spec])) as Record<
  IntegrationId,
  IntegrationSpec
>;

/** Google reports full scope URLs; the contract shows the short form ("calendar.readonly"). Graph's names are short already. */
export const shortScope = (scope: string) => (scope.startsWith(GOOGLE_SCOPE_PREFIX) ? scope.slice(GOOGLE_SCOPE_PREFIX.length) : scope);
