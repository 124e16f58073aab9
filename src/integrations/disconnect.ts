import { type HubError, type Result, fail, hubError, ok } from '../core/errors';
import type { Logger } from '../logger';
import type { CredentialStore } from '../store/credential-store';
import { DecryptionError } from '../store/token-cipher';
import { classifyGoogleError } from '../providers/google/errors';
import type { FailureKind } from '../resilience/failures';
import { storeUnavailable } from './store-unavailable';
import type { GoogleClients } from '../providers/google/clients';
import type { IntegrationId } from '../core/integrations';
import { type ConnectionEvent, type OnConnectionEvent, recordWith } from '../audit/connection-events';

/**
 * Disconnecting an integration: revoke the grant at Google, then forget it. Revocation comes first so a
 * failure leaves things as they were — the row is kept and the admin retries — never a deleted row with a live
 * grant behind it. Idempotent: nothing to disconnect is a success (`disconnected: false`), and a token Google
 * already considers dead (`invalid_token`) counts as revoked.
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
  /** Google confirmed the grant's token no longer works (revoked now, or already dead). */
  revokedAtGoogle: boolean;
  /** Why no revocation was attempted although tokens were held: another connection uses the same account. */
  revokeSkipped?: 'account_in_use';
}

/** `actor`: the admin token's `sub`, for the audit trail. */
export type Disconnect = (target: DisconnectTarget, log: Logger, actor?: string | null) => Promise<Result<DisconnectOutcome>>;

type Revocation = 'revoked' | 'refused' | HubError;

/** Worth retrying: Google (or the way to it) failed, not the token. */
const TRANSIENT: ReadonlySet<FailureKind> = new Set(['server_error', 'network', 'timeout', 'rate_limited']);

export function createDisconnect(deps: {
  store: CredentialStore;
  google: GoogleClients;
  /** Bound on the one revocation request (HUB_GOOGLE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Called once a row is gone, so nothing keeps serving it from a cache. */
  onCredentialChanged: (target: DisconnectTarget) => void;
  /** Audit trail and webhooks; must not block. */
  onConnectionEvent?: OnConnectionEvent;
}): Disconnect {
  const { store } = deps;

  /**
   * One POST to Google's revoke endpoint, the token in the form body (kept out of URLs and thus out of any
   * proxy log). Sent through the OAuth client's own transport rather than `revokeToken()`, which puts the token
   * in the query string, takes no abort signal and retries 5xx by itself for seconds: here one bounded attempt
   * decides, and the admin's retry is the retry.
   */
  async function revoke(token: string): Promise<Revocation> {
    const client = deps.google.oauth2();
    try {
      await client.transporter.request({
        url: client.endpoints.oauth2RevokeUrl,
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        data: new URLSearchParams({ token }).toString(),
        signal: AbortSignal.timeout(deps.timeoutMs),
        retry: false,
      });
      return 'revoked';
    } catch (err) {
      const failure = classifyGoogleError(err, { operation: 'the token revocation' });
      if (!failure) throw err;
      if (failure.status === 400 && failure.reason === 'invalid_token') return 'revoked'; // already revoked or expired
      if (!TRANSIENT.has(failure.kind)) return 'refused';
      const retryAfterS = failure.retryAfterMs === undefined ? undefined : failure.retryAfterMs / 1000;
      return hubError('EXTERNAL_API_ERROR', 'Google could not revoke the grant right now; the connection was kept — retry the request', {
        retryable: true,
        details: { reason: failure.kind, ...(failure.status !== undefined ? { upstream_status: failure.status } : {}) },
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
      });
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
    if (record === null) return ok({ disconnected: false, revokedAtGoogle: false });

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
        'disconnecting a credential that cannot be decrypted; not revoked at Google',
      );
    }

    // Google revokes the whole grant of an account to the Hub: when another connection (another integration, end
    // user or customer) rides on the same account, revoking would silently break it. Deleting this row is then
    // the disconnect — the Hub no longer holds these tokens.
    let shared = false;
    if (token !== null) {
      try {
        shared = await store.accountInUseElsewhere(record);
      } catch (err) {
        return fail(storeUnavailable(err, log));
      }
      if (shared) log.info(logged, 'account used by another connection: grant kept at Google, connection deleted');
    }

    let revokedAtGoogle = false;
    if (token !== null && !shared) {
      const revocation = await revoke(token);
      if (typeof revocation !== 'string') {
        log.warn({ ...logged, reason: revocation.details?.reason }, 'revocation at Google failed; connection kept');
        return fail(revocation);
      }
      if (revocation === 'refused') log.warn(logged, 'Google refused the revocation; deleting the connection anyway');
      revokedAtGoogle = revocation === 'revoked';
    }

    // By identity, not id: the admin asked for this connection to be gone, including a reconnect racing the call.
    const event: ConnectionEvent = {
      kind: 'disconnected',
      ...target,
      accountEmail: record.accountEmail,
      actor,
      details: { revoked_at_google: revokedAtGoogle },
    };
    try {
      await store.remove(customerId, userId, integration, recordWith(deps.onConnectionEvent, event));
    } catch (err) {
      return fail(storeUnavailable(err, log)); // revoked but kept: a retry finds invalid_token and deletes it
    }
    deps.onCredentialChanged(target);
    deps.onConnectionEvent?.(event);
    log.info({ ...logged, revoked_at_google: revokedAtGoogle }, 'integration disconnected');
    return ok({ disconnected: true, revokedAtGoogle, ...(shared ? { revokeSkipped: 'account_in_use' as const } : {}) });
  };
}
