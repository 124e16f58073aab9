import type { RequestHandler } from 'express';
import { z } from 'zod';
import { actorOf, mayActOn, principalOf } from '../../auth/admin-access';
import { CAPABILITIES, type Capability, PROVIDER_IDS, type ProviderId } from '../../core/capabilities';
import { type ChoiceReason, chooseProvider } from '../../core/provider-choice';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery, toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { Logger } from '../../logger';
import type { CredentialChange } from '../../integrations/credential-events';
import type { CapabilityDefault, CapabilityDefaults } from '../../store/capability-defaults';
import type { CredentialRecord, CredentialStore } from '../../store/credential-store';
import { OFFERED_INTEGRATIONS } from './provider-offers';

const params = z.object({
  customer_id: z.guid('must be a UUID'),
  capability: z.enum(CAPABILITIES, { error: `must be one of ${CAPABILITIES.join(', ')}` }).optional(),
});
const query = z.strictObject({});
export const capabilityDefaultBody = z.strictObject({
  provider: z.enum(PROVIDER_IDS, { error: `must be one of ${PROVIDER_IDS.join(', ')}` }),
});

export interface CapabilityDefaultsDeps {
  defaults: CapabilityDefaults;
  store: CredentialStore;
  logger: Logger;
  /**
   * Told after a default changed, naming an integration of the capability: tool calls cache the default with the
   * capability's connections (src/integrations/credential-cache.ts), on every replica, and must forget it now.
   */
  onCredentialChanged?: (change: CredentialChange) => void;
}

/** One capability as the admin API shows it: the default in store, and whom a customer-wide call reaches now. */
interface CapabilityDefaultView {
  capability: Capability;
  default_provider: ProviderId | null;
  default_updated_at: string | null;
  connected_providers: ProviderId[];
  resolves_to: { provider: ProviderId; integration: string; reason: ChoiceReason } | null;
}

/**
 * What a call without an end user (customer-wide) resolves to: the customer-wide connections that are connected.
 * An end user's own connections come first for that user's calls (src/core/provider-choice.ts), so the answer is
 * the customer's, not every end user's.
 */
function viewOf(capability: Capability, stored: CapabilityDefault | null, records: readonly CredentialRecord[]): CapabilityDefaultView {
  const offered = new Map(OFFERED_INTEGRATIONS.filter((s) => s.capability === capability).map((s) => [s.id as string, s.provider]));
  const connections = records
    .filter((r) => r.userId === null && r.status === 'connected' && offered.has(r.integration))
    .map((r) => ({ provider: offered.get(r.integration)!, integration: r.integration as string, source: 'customer' as const, connectedAt: r.createdAt }));
  const choice = chooseProvider({ capability, offered: OFFERED_INTEGRATIONS, connections, defaultProvider: stored?.provider ?? null, pin: null });
  return {
    capability,
    default_provider: stored?.provider ?? null,
    default_updated_at: stored ? stored.updatedAt.toISOString() : null,
    connected_providers: PROVIDER_IDS.filter((p) => connections.some((c) => c.provider === p)),
    resolves_to: choice.ok ? { provider: choice.connection.provider, integration: choice.connection.integration, reason: choice.reason } : null,
  };
}

/**
 * GET /api/admin/customers/{customer_id}/defaults (every capability), PUT …/defaults/{capability} (mark a provider
 * default) and DELETE …/defaults/{capability} (back to "the first connected"). A default may name a provider the
 * customer has not connected (yet): it is stored as is and takes effect once that provider is connected and another
 * one is too — with a single provider connected, that one answers whatever the default says.
 */
export function capabilityDefaultsRoute(deps: CapabilityDefaultsDeps, action: 'list' | 'set' | 'clear'): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id, capability or query parameters');
    if (!parsed.ok) return sendError(res, parsed.error);
    let provider: ProviderId | null = null;
    if (action === 'set') {
      const body = capabilityDefaultBody.safeParse(req.body);
      if (!body.success) return sendError(res, validationError('Invalid default provider', toIssues(body.error)));
      provider = body.data.provider;
    }
    const customerId = parsed.params.customer_id.toLowerCase();
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, customerId);
    if (forbidden) return sendError(res, forbidden);
    const logger = requestLogger(deps.logger, res);
    try {
      const capability = parsed.params.capability;
      if (action === 'list' || capability === undefined) {
        const [stored, records] = await Promise.all([deps.defaults.list(customerId), deps.store.listForCustomer(customerId)]);
        const views = CAPABILITIES.map((c) => viewOf(c, stored.find((d) => d.capability === c) ?? null, records));
        return sendJson(res, 200, { customer_id: customerId, capabilities: views });
      }
      if (provider !== null) await deps.defaults.set(customerId, capability, provider);
      else await deps.defaults.clear(customerId, capability);
      logger.info({ customer_id: customerId, capability, provider, actor: actorOf(principal) }, 'capability default changed');
      const integration = OFFERED_INTEGRATIONS.find((s) => s.capability === capability)!.id;
      deps.onCredentialChanged?.({ customerId, userId: null, integration });
      const [stored, records] = await Promise.all([deps.defaults.get(customerId, capability), deps.store.listForCustomer(customerId)]);
      return sendJson(res, 200, { customer_id: customerId, ...viewOf(capability, stored, records) });
    } catch (err) {
      return sendError(res, storeUnavailable(err, logger));
    }
  };
}
