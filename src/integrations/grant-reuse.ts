import type { Logger } from '../logger';
import type { CredentialStore } from '../store/credential-store';
import { type GrantPolicy, grantHealth } from './grant-health';
import { INTEGRATIONS } from './catalog';
import { missingScopes } from './scopes';
import type { SetupTarget } from './setup-url';
import type { TokenRefresher } from './token-refresh';

/**
 * Reconnecting without minting a new refresh token each time. Written for Google, whose rules follow; it holds
 * for Microsoft unchanged: with `offline_access` Microsoft sends a refresh token on every sign-in, so `mayKeep` is
 * never asked, and a reconnect of a working grant only skips the consent screen (prompt=select_account).
 *
 * Google returns a refresh token only when it shows the consent screen: the first time an account authorizes
 * the app, or whenever the app sends prompt=consent (Google's web-server guide on `access_type=offline` and
 * `prompt`; usefulangle.com/post/51: "No consent screen means no refresh token"). Each one it mints counts
 * toward the 100 live refresh tokens per account and client, past which Google silently retires the oldest —
 * which may be the token another connection of the same account still holds. Older tokens stay valid when a
 * new one is issued. So a reconnect of an account whose grant still works needs no fresh consent: the Hub
 * asks without prompt=consent (login_hint = the connected account), Google answers without a refresh token,
 * and the stored one carries on — after one refresh_token request proves it still works.
 *
 * A fresh consent (prompt=consent) is asked for whenever the stored grant cannot carry on: no connection yet,
 * expired, missing scopes, ending soon (time-limited access, six months unused), or an app in Testing mode
 * (every grant ends 7 days after consent, so only a new consent extends it).
 */

export type ConsentPlan = { freshConsent: true } | { freshConsent: false; loginHint: string };

export interface GrantReuse {
  /** At the start of a connect attempt: must Google show the consent screen (and mint a refresh token)? */
  plan(target: SetupTarget): Promise<ConsentPlan>;
  /**
   * At its end, when Google sent no refresh token: whether the stored one may carry on for `email` — the same
   * account, still connected, and Google still honouring it (one refresh proves it; a refusal expires the row,
   * so the next attempt asks for a fresh consent).
   */
  mayKeep(target: SetupTarget, email: string | null): Promise<boolean>;
}

export function createGrantReuse(deps: {
  store: CredentialStore;
  refresher: TokenRefresher;
  grants: GrantPolicy;
  timeoutMs: number;
  logger: Logger;
}): GrantReuse {
  const { store, refresher, grants, logger } = deps;

  const reusable = async (target: SetupTarget) => {
    // Google's Testing mode ends every grant 7 days after consent: only a fresh consent extends it.
    if (grants.testingMode && INTEGRATIONS[target.integration].provider === 'google') return null;
    const row = await store.findExact(target.customerId, target.userId, target.integration);
    if (row === null || row.status !== 'connected' || row.sealed.refresh === null || row.accountEmail === null) return null;
    if (missingScopes(row.scopes, INTEGRATIONS[target.integration].scopes).length > 0) return null;
    return grantHealth(row, grants).health === 'ok' ? row : null;
  };

  return {
    async plan(target) {
      const row = await reusable(target);
      return row === null ? { freshConsent: true } : { freshConsent: false, loginHint: row.accountEmail! };
    },

    async mayKeep(target, email) {
      const row = await store.findExact(target.customerId, target.userId, target.integration);
      if (email === null || row === null || row.status !== 'connected' || row.sealed.refresh === null) return false;
      if (row.accountEmail?.toLowerCase() !== email.toLowerCase()) return false;
      const proof = await refresher.refresh(row, { force: true, signal: AbortSignal.timeout(deps.timeoutMs) });
      if (proof.ok) return true;
      if (proof.error.code === 'INTEGRATION_EXPIRED' || proof.error.code === 'INTEGRATION_NOT_CONNECTED') return false;
      // Google (or the store) is down: the exchange just succeeded, so the grant is most likely fine; the next
      // refresh will tell, and expire the row if not.
      logger.warn({ credential_id: row.id, code: proof.error.code }, 'could not check the stored grant while reconnecting; keeping it');
      return true;
    },
  };
}
