import { type Result, fail, ok } from '../core/errors';
import type { Logger } from '../logger';
import type { CredentialStore } from '../store/credential-store';
import type { CapabilityDefaults } from '../store/capability-defaults';
import { DecryptionError } from '../store/token-cipher';
import { storeUnavailable } from './store-unavailable';
import type { IntegrationId } from '../core/integrations';
import type { ConnectingRegistry } from '../providers/connecting';
import { INTEGRATIONS, OFFERED_INTEGRATIONS } from './catalog';
import { type ConnectionEvent, type OnConnectionEvent, recordWith } from '../audit/connection-events';

/**
 * Disconnecting an integration: revoke the grant at its vendor (ProviderOAuth.revoke), then forget it. Revocation
 * comes first so a failure leaves things as they were — the row is kept and the admin retries — never a deleted
 * row with a live grant behind it. Idempotent: nothing to disconnect is a success (`disconnected: false`), and a
 * token the vendor already considers dead counts as revoked. A vendor with no way to revoke one grant (Microsoft:
 * `unsupported`) is said so (`revokeSkipped: 'unsupported'`), and the row is deleted: the Hub can no longer act,
 * and the person or an administrator removes the consent at the vendor. The capability's default goes with the
 * connection when it was this provider's.
 */

export interface DisconnectTarget {
  customerId: string;
  /** The end user's own connection, or null for the customer-wide one (exactly that row; no fallback). */
  userId: string | null;
  integration: IntegrationId;
}

export interface DisconnectOutcome {
  /** False when there was no such connection. */
  disconnected: boolean;
  /** The vendor confirmed the grant's token no longer works (revoked now, or already dead). */
  revokedAtVendor: boolean;
  /**
   * Why no revocation happened although tokens were held: another connection uses the same account
   * (`account_in_use`), or the vendor has no way to revoke one grant (`unsupported`).
   */
  revokeSkipped?: 'account_in_use' | 'unsupported';
}

/** `actor`: the admin token's `sub`, for the audit trail. */
export type Disconnect = (target: DisconnectTarget, log: Logger, actor?: string | null) => Promise<Result<DisconnectOutcome>>;

export function createDisconnect(deps: {
  store: CredentialStore;
  connecting: ConnectingRegistry;
  /** Forgets the capability's default when it was this provider's (capability-defaults.ts `clear` with onlyIf). */
  defaults?: Pick<CapabilityDefaults, 'clear'>;
  /** Bound on the one revocation request. */
  timeoutMs: number;
  /** Called once a row is gone, so nothing keeps serving it from a cache. */
  onCredentialChanged: (target: DisconnectTarget) => void;
  /** Audit trail and webhooks; must not block. */
  onConnectionEvent?: OnConnectionEvent;
}): Disconnect {
  const { store } = deps;

  /**
   * The customer's last connection of this integration went: forget the capability's default while it is still this
   * provider's (an admin may have moved it meanwhile), so the next provider connected becomes the default. A failure
   * is logged, never a failed disconnect: the provider choice rule still skips a provider not connected.
   */
  async function clearDefault(target: DisconnectTarget, log: Logger): Promise<void> {
    if (!deps.defaults) return;
    const spec = INTEGRATIONS[target.integration];
    try {
      const left = await store.listForCustomer(target.customerId);
      if (left.some((r) => r.integration === target.integration)) return;
      await deps.defaults.clear(target.customerId, spec.capability, { onlyIf: spec.provider });
    } catch (err) {
      log.warn({ err, customer_id: target.customerId, integration: target.integration }, 'could not forget the capability default');
    }
  }

  return async (target, log, actor = null) => {
    const { customerId, userId, integration } = target;
    const logged = { customer_id: customerId, integration, user_scoped: userId !== null };
    let record;
    try {
      record = await store.findExact(customerId, userId, integration);
    } catch (err) {
      return fail(storeUnavailable(err, log));
    }
    if (record === null) return ok({ disconnected: false, revokedAtVendor: false });
    const spec = INTEGRATIONS[integration];
    const { oauth, vendorName } = deps.connecting.of(spec.provider);

    // The refresh token revokes the whole grant; an access token alone revokes it too while it is still valid.
    let token: string | null = null;
    try {
      const tokens = store.openTokens(record);
      token = tokens.refreshToken ?? tokens.accessToken;
    } catch (err) {
      if (!(err instanceof DecryptionError)) throw err;
      // Nobody can ever use these tokens again (nor revoke them): deleting the row is all that is left to do.
      log.warn(
        { ...logged, credential_id: record.id, key_id: record.sealed.keyId, reason: err.message },
        'disconnecting a credential that cannot be decrypted; not revoked at the vendor',
      );
    }

    // Google revokes the whole grant of an account to the Hub: when another connection (another integration, end
    // user or customer) of the same vendor rides on the same account, revoking would silently break it. Deleting
    // this row is then the disconnect — the Hub no longer holds these tokens.
    let shared = false;
    if (token !== null) {
      try {
        const sameVendor = OFFERED_INTEGRATIONS.filter((i) => i.provider === spec.provider).map((i) => i.id);
        shared = await store.accountInUseElsewhere(record, sameVendor);
      } catch (err) {
        return fail(storeUnavailable(err, log));
      }
      if (shared) log.info(logged, 'account used by another connection: grant kept at the vendor, connection deleted');
    }

    let revokedAtVendor = false;
    let unsupported = false;
    if (token !== null && !shared) {
      const revocation = await oauth.revoke(token, AbortSignal.timeout(deps.timeoutMs));
      if (typeof revocation !== 'string') {
        log.warn({ ...logged, reason: revocation.details?.reason }, `revocation at ${vendorName} failed; connection kept`);
        return fail(revocation);
      }
      if (revocation === 'refused') log.warn(logged, `${vendorName} refused the revocation; deleting the connection anyway`);
      if (revocation === 'unsupported') log.info(logged, `${vendorName} cannot revoke one grant; deleting the connection (the consent stays at ${vendorName})`);
      revokedAtVendor = revocation === 'revoked';
      unsupported = revocation === 'unsupported';
    }
    const revokeSkipped = shared ? ('account_in_use' as const) : unsupported ? ('unsupported' as const) : undefined;

    // By identity, not id: the admin asked for this connection to be gone, including a reconnect racing the call.
    const event: ConnectionEvent = {
      kind: 'disconnected',
      ...target,
      accountEmail: record.accountEmail,
      actor,
      // revoked_at_google stays for the receivers that read it (its name predates Microsoft); it means the vendor.
      details: { revoked_at_google: revokedAtVendor, revoked_at_vendor: revokedAtVendor, ...(revokeSkipped ? { revoke_skipped: revokeSkipped } : {}) },
    };
    try {
      await store.remove(customerId, userId, integration, recordWith(deps.onConnectionEvent, event));
    } catch (err) {
      return fail(storeUnavailable(err, log)); // revoked but kept: a retry finds invalid_token and deletes it
    }
    deps.onCredentialChanged(target);
    deps.onConnectionEvent?.(event);
    await clearDefault(target, log);
    log.info({ ...logged, revoked_at_vendor: revokedAtVendor }, 'integration disconnected');
    return ok({ disconnected: true, revokedAtVendor, ...(revokeSkipped ? { revokeSkipped } : {}) });
  };
}
