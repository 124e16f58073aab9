import type { Capability, ProviderId } from '../core/capabilities';
import { type HubError, type Result, fail, hubError, ok } from '../core/errors';
import { type IntegrationId } from '../core/integrations';
import type { Logger } from '../logger';
import type { CapabilityDefaults } from '../store/capability-defaults';
import type { CredentialRecord, CredentialStore } from '../store/credential-store';
import type { AnyTool, Connection } from '../tools/types';
import { INTEGRATIONS } from './catalog';
import { type CachedCredential, createCredentialCache } from './credential-cache';
import { grantExpiredError } from './grant-health';
import { type Found, type Resolution, resolveCapability } from './provider-resolution';
import { missingScopesError } from './scopes';
import { storeUnavailable } from './store-unavailable';
import type { SetupUrlFor } from './setup-url';
import type { TokenRefresher } from './token-refresh';

export interface Caller {
  customerId: string;
  userId: string | null;
}

export interface ConnectionResolver {
  /**
   * The connection a tool may use for this caller — among every integration of the tool's capability, chosen by
   * the provider choice rule (src/core/provider-choice.ts), or only `pin`'s when the agent pinned a provider — or
   * the contract error explaining why there is none.
   */
  connect(tool: Pick<AnyTool, 'name' | 'capability' | 'permissions'>, caller: Caller, pin?: ProviderId | null): Promise<Result<Connection>>;
  /**
   * Forgets cached lookups after a connection was replaced or removed: every cached lookup of this customer and
   * the integration's capability (a user's row changing can change what a customer-wide fallback resolves to, and
   * a second provider connected can change which one answers).
   */
  invalidate(target: { customerId: string; userId: string | null; integration: IntegrationId }): void;
}

export function createConnectionResolver(deps: {
  store: CredentialStore;
  /** The customer's default provider per capability: read only when several providers could answer. */
  defaults: Pick<CapabilityDefaults, 'get'>;
  setupUrlFor: SetupUrlFor;
  logger: Logger;
  refresher: TokenRefresher;
  /** In-process cache of found rows (0 = read the database every call). */
  cacheTtlMs: number;
  /** Bounds a token refresh whose caller passed no deadline signal. */
  deadlineMs: number;
}): ConnectionResolver {
  const { store, setupUrlFor, refresher } = deps;
  const cache = createCredentialCache(deps.cacheTtlMs);

  /** The entry's access token, unsealed on first use and kept with the (cached) record. */
  const tokenOf = (entry: CachedCredential): string => {
    entry.accessToken ??= store.openAccessToken(entry.record) ?? undefined;
    if (entry.accessToken === undefined) throw new Error(`credential ${entry.record.id} has no access token after refresh`);
    return entry.accessToken;
  };

  function connection(found: CachedCredential, caller: Caller, integration: IntegrationId, setupUrl: () => string): Connection {
    let entry = found;
    const needsPerson = (error: HubError): HubError =>
      error.code === 'INTEGRATION_EXPIRED' || error.code === 'INTEGRATION_NOT_CONNECTED'
        ? { ...error, details: { ...error.details, integration, setup_url: setupUrl() } }
        : error;
    const refreshed = async (force: boolean, signal: AbortSignal | undefined, onRequest: (() => void) | undefined): Promise<Result<string>> => {
      const answer = await refresher.refresh(entry.record, { force, signal: signal ?? AbortSignal.timeout(deps.deadlineMs), onRequest });
      if (!answer.ok) {
        // The row changed state (expired, gone): the next lookup must see that, not this cached record.
        if (answer.error.code === 'INTEGRATION_EXPIRED' || answer.error.code === 'INTEGRATION_NOT_CONNECTED') cache.invalidate(caller.customerId, integration);
        return fail(needsPerson(answer.error));
      }
      entry = cache.replace(answer.value.record, answer.value.accessToken);
      return ok(tokenOf(entry));
    };
    const { record } = found;
    return {
      credentialId: record.id,
      integration,
      provider: INTEGRATIONS[integration].provider,
      displayName: INTEGRATIONS[integration].displayName,
      accountEmail: record.accountEmail,
      scopes: record.scopes,
      source: record.userId === null ? 'customer' : 'user',
      setupUrl,
      workingHours: record.workingHours,
      accessToken: (signal, onRequest) => (refresher.needsRefresh(entry.record) ? refreshed(false, signal, onRequest) : Promise.resolve(ok(tokenOf(entry)))),
      refresh: (signal, onRequest) => refreshed(true, signal, onRequest),
    };
  }

  /**
   * The rows of `capability` this caller resolves to, by integration (the end user's own, else the customer's):
   * from the cache, else one query for every integration at once. Absences are cached only beside a found row of
   * the same capability, so "nothing connected" is never answered from memory.
   */
  async function rowsOf(integrations: readonly IntegrationId[], caller: Caller): Promise<Map<IntegrationId, CachedCredential>> {
    const found = new Map<IntegrationId, CachedCredential>();
    let complete = true;
    for (const integration of integrations) {
      const cached = cache.get(caller.customerId, caller.userId, integration);
      if (cached === undefined) complete = false;
      else if (cached !== null) found.set(integration, cached);
    }
    if (complete) return found;
    const records: Map<IntegrationId, CredentialRecord> = await store.resolveAll(caller.customerId, caller.userId);
    found.clear();
    for (const integration of integrations) {
      const record = records.get(integration);
      if (record) found.set(integration, cache.put(caller.customerId, caller.userId, integration, record));
    }
    if (found.size > 0) for (const integration of integrations) if (!found.has(integration)) cache.putAbsent(caller.customerId, caller.userId, integration);
    return found;
  }

  async function defaultOf(capability: Capability, integration: IntegrationId, caller: Caller): Promise<ProviderId | null> {
    const cached = cache.getDefault(caller.customerId, integration);
    if (cached !== undefined) return cached;
    const stored = (await deps.defaults.get(caller.customerId, capability))?.provider ?? null;
    cache.putDefault(caller.customerId, integration, stored);
    return stored;
  }

  function notConnected(resolution: Extract<Resolution<CachedCredential>, { kind: 'not_connected' }>, caller: Caller): HubError {
    const who = caller.userId === null ? 'this customer' : 'this user or customer';
    const names = resolution.integrations.map((id) => INTEGRATIONS[id].displayName);
    const first = resolution.integrations[0]!;
    const none = names.length > 1 ? `Neither ${names.slice(0, -1).join(', ')} nor ${names.at(-1)} is connected` : `${names[0]} is not connected`;
    const message = `${none} for ${who}${resolution.pinned === null ? '' : ` (the call asked for ${resolution.pinned})`}`;
    return hubError('INTEGRATION_NOT_CONNECTED', message, {
      details: {
        integration: first,
        integrations: resolution.integrations,
        ...(resolution.pinned === null ? {} : { provider: resolution.pinned }),
        setup_url: setupUrlFor({ ...caller, integration: first }),
      },
    });
  }

  return {
    invalidate(target) {
      cache.invalidate(target.customerId, target.integration);
    },

    async connect(tool, caller, pin = null) {
      const capability = tool.capability;
      if (capability === null) throw new Error(`${tool.name} declares no capability, so it has no connection to resolve`);
      let resolution: Resolution<CachedCredential>;
      try {
        resolution = await resolveCapability({
          capability,
          pin,
          rows: (integrations) => rowsOf(integrations, caller),
          defaultProvider: (integration) => defaultOf(capability, integration, caller),
        });
      } catch (err) {
        return fail(storeUnavailable(err, deps.logger));
      }
      if (resolution.kind === 'not_connected') return fail(notConnected(resolution, caller));
      const { integration, entry }: Found<CachedCredential> = resolution.found;
      const setupUrl = () => setupUrlFor({ ...caller, integration });
      if (resolution.kind === 'expired') {
        const error = grantExpiredError(integration, entry.record.expiryReason);
        return fail({ ...error, details: { ...error.details, integration, setup_url: setupUrl() } });
      }
      const denied = missingScopesError({ integration, granted: entry.record.scopes, permissions: tool.permissions, what: `${tool.name} needs`, setupUrl });
      if (denied) return fail(denied);
      return ok(connection(entry, caller, integration, setupUrl));
    },
  };
}

// Re-exported for the admin routes, access and auth, which import it from here.
export { storeUnavailable } from './store-unavailable';
