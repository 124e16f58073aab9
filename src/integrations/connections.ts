import { type HubError, type Result, fail, hubError, ok } from '../core/errors';
import type { Logger } from '../logger';
import type { CredentialRecord, CredentialStore } from '../store/credential-store';
import type { AnyTool, Connection } from '../tools/types';
import { type CachedCredential, createCredentialCache } from './credential-cache';
import { grantExpiredError } from './grant-health';
import { INTEGRATIONS } from './catalog';
import { type IntegrationId } from '../core/integrations';
import { missingScopesError } from './scopes';
import { storeUnavailable } from './store-unavailable';
import type { SetupUrlFor } from './setup-url';
import type { TokenRefresher } from './token-refresh';

export interface Caller {
  customerId: string;
  userId: string | null;
}

export interface ConnectionResolver {
  /** The connection a tool may use for this caller, or the contract error explaining why there is none. */
  connect(tool: Pick<AnyTool, 'name' | 'requiredScopes'>, integration: IntegrationId, caller: Caller): Promise<Result<Connection>>;
  /**
   * Forgets cached lookups after a connection was replaced or removed: every cached lookup of this customer and
   * integration (a user's row changing can change what a customer-wide fallback resolves to).
   */
  invalidate(target: { customerId: string; userId: string | null; integration: IntegrationId }): void;
}

export function createConnectionResolver(deps: {
  store: CredentialStore;
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
      accountEmail: record.accountEmail,
      scopes: record.scopes,
      source: record.userId === null ? 'customer' : 'user',
      setupUrl,
      workingHours: record.workingHours,
      accessToken: (signal, onRequest) => (refresher.needsRefresh(entry.record) ? refreshed(false, signal, onRequest) : Promise.resolve(ok(tokenOf(entry)))),
      refresh: (signal, onRequest) => refreshed(true, signal, onRequest),
    };
  }

  return {
    invalidate(target) {
      cache.invalidate(target.customerId, target.integration);
    },

    async connect(tool, integration, caller) {
      const name = INTEGRATIONS[integration].displayName;
      const setupUrl = () => setupUrlFor({ ...caller, integration });

      let entry = cache.get(caller.customerId, caller.userId, integration);
      if (entry === undefined) {
        let record: CredentialRecord | null;
        try {
          record = await store.resolve(caller.customerId, caller.userId, integration);
        } catch (err) {
          return fail(storeUnavailable(err, deps.logger));
        }
        if (record === null) {
          const who = caller.userId === null ? 'this customer' : 'this user or customer';
          return fail(
            hubError('INTEGRATION_NOT_CONNECTED', `${name} is not connected for ${who}`, {
              details: { integration, setup_url: setupUrl() },
            }),
          );
        }
        entry = cache.put(caller.customerId, caller.userId, integration, record);
      }
      const { record } = entry;

      if (record.status === 'expired') {
        const error = grantExpiredError(integration, record.expiryReason);
        return fail({ ...error, details: { ...error.details, integration, setup_url: setupUrl() } });
      }
      const denied = missingScopesError({ integration, granted: record.scopes, required: tool.requiredScopes, what: `${tool.name} needs`, setupUrl });
      if (denied) return fail(denied);
      return ok(connection(entry, caller, integration, setupUrl));
    },
  };
}

// Re-exported for the admin routes, access and auth, which import it from here.
export { storeUnavailable } from './store-unavailable';
