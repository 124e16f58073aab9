import { type HubError, type Result, fail, hubError, ok } from '../errors';
import type { Logger } from '../logger';
import type { CredentialRecord, CredentialStore } from '../store/credential-store';
import { isDatabaseUnavailable } from '../store/db';
import type { AnyTool, Connection } from '../tools/types';
import { INTEGRATIONS, type IntegrationId, shortScope } from './integrations';
import { missingScopes } from './scopes';
import type { SetupUrlFor } from './setup-url';

export interface Caller {
  customerId: string;
  userId: string | null;
}

export interface ConnectionResolver {
  /** The connection a tool may use for this caller, or the contract error explaining why there is none. */
  connect(
    tool: Pick<AnyTool, 'name' | 'requiredScopes'>,
    integration: IntegrationId,
    caller: Caller,
  ): Promise<Result<Connection>>;
  /** Forgets cached lookups after a connection was replaced or removed. */
  invalidate(target: { customerId: string; userId: string | null; integration: IntegrationId }): void;
}

/** Turns a failed credential-store call into SERVICE_UNAVAILABLE (retry) or a bug (rethrown). */
export function storeUnavailable(err: unknown, logger: Logger): HubError {
  if (!isDatabaseUnavailable(err)) throw err;
  logger.warn({ err }, 'credential store unavailable');
  return hubError('SERVICE_UNAVAILABLE', 'The Hub cannot reach its credential store right now; retry shortly', {
    retryAfterS: 2,
  });
}

export function createConnectionResolver(deps: {
  store: CredentialStore;
  setupUrlFor: SetupUrlFor;
  logger: Logger;
}): ConnectionResolver {
  const { store, setupUrlFor } = deps;

  return {
    invalidate() {}, // nothing is cached yet

    async connect(tool, integration, caller) {
      const name = INTEGRATIONS[integration].displayName;
      const setupUrl = () => setupUrlFor({ ...caller, integration });

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
      if (record.status === 'expired') {
        return fail(
          hubError('INTEGRATION_EXPIRED', `${name} access has expired or was revoked; it must be connected again`, {
            details: { integration, setup_url: setupUrl() },
          }),
        );
      }
      const missing = missingScopes(record.scopes, tool.requiredScopes);
      if (missing.length > 0) {
        return fail(
          hubError('INTEGRATION_PERMISSION_DENIED', `${name} was connected without the permissions ${tool.name} needs`, {
            details: {
              integration,
              required_scopes: tool.requiredScopes.map(shortScope),
              granted_scopes: record.scopes.map(shortScope),
              missing_scopes: missing.map(shortScope),
              setup_url: setupUrl(),
            },
          }),
        );
      }

      const found = record;
      return ok({
        credentialId: found.id,
        integration,
        accountEmail: found.accountEmail,
        scopes: found.scopes,
        source: found.userId === null ? 'customer' : 'user',
        setupUrl,
        accessToken: async () => {
          const token = store.openTokens(found).accessToken;
          if (token === null) throw new Error(`credential ${found.id} has no access token`);
          return token;
        },
      });
    },
  };
}
