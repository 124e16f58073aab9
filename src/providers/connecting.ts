import type { Config } from '../config';
import type { ProviderId } from '../core/capabilities';
import { type HubError, hubError } from '../core/errors';
import type { GrantReason, ProviderOAuth } from '../core/provider';
import type { Logger } from '../logger';
import type { GoogleClients } from './google/clients';
import { googleGrantDeadline } from './google/grant-lifetime';
import { createGoogleOAuth } from './google/oauth';
import { tenantOfAccountId } from './microsoft/account-id';
import { microsoftGrantDeadline } from './microsoft/grant-lifetime';
import { createMicrosoftOAuth } from './microsoft/oauth';
import { REFUSAL_OUTCOMES } from './microsoft/refusal-codes';

/**
 * The connecting registry: for a provider, its `ProviderOAuth` (core/provider.ts), what a redirect back to the
 * Hub without a code means, and its grant-lifetime rules. src/integrations reaches a vendor's OAuth only through
 * here, so connecting, refreshing, disconnecting and judging a grant are written once for every provider.
 */

/** What the Hub does after a redirect back without a code (Microsoft's callback.ts names the same steps). */
export type CallbackNext = 'restart_connect' | 'admin_consent' | 'start_over' | 'retry_later' | 'ask_administrator' | 'fix_configuration';

export interface CallbackStep {
  next: CallbackNext;
  /** The person declined at the vendor (as opposed to the sign-in failing). */
  declined: boolean;
  /** With `admin_consent`: where an administrator of the organisation approves the Hub for everyone. */
  adminConsentUrl?: string;
  /** Safe to log: the OAuth error and the vendor's numbers, never the description (it may name the person). */
  logged: string;
}

export interface ProviderConnecting {
  provider: ProviderId;
  /** The vendor as a person knows it, in pages and messages: "Google", "Microsoft". */
  vendorName: string;
  /** The variables an operator sets to configure connecting (shown when it is not configured). */
  credentialVariables: readonly string[];
  oauth: ProviderOAuth;
  /**
   * What a redirect to the callback without a code means and what comes next, or null when it carries a code.
   * `accountId`: the connection's stored account id, when one is held (Microsoft sends an administrator to that
   * organisation's own admin-consent page).
   */
  callbackStep(query: Record<string, unknown>, accountId: string | null): CallbackStep | null;
}

export interface ConnectingRegistry {
  of(provider: ProviderId): ProviderConnecting;
}

/** Google's OAuth errors on the redirect (RFC 6749 §4.1.2.1): a decline, or anything else ending the sign-in. */
function googleCallbackStep(query: Record<string, unknown>): CallbackStep | null {
  const error = query.error;
  if (typeof error !== 'string' || error === '') return null;
  // Any error ends this attempt; the person may start over (Google's redirect says no more than the error).
  return { next: 'start_over', declined: error === 'access_denied', logged: error.slice(0, 64) };
}

export function createConnecting(deps: { config: Config; google: GoogleClients; logger: Logger }): ConnectingRegistry {
  const google: ProviderConnecting = {
    provider: 'google',
    vendorName: 'Google',
    credentialVariables: ['HUB_GOOGLE_CLIENT_ID', 'HUB_GOOGLE_CLIENT_SECRET'],
    oauth: createGoogleOAuth(deps),
    callbackStep: googleCallbackStep,
  };
  const microsoftOAuth = createMicrosoftOAuth(deps.config.microsoft, { logger: deps.logger });
  const microsoft: ProviderConnecting = {
    provider: 'microsoft',
    vendorName: 'Microsoft',
    credentialVariables: ['HUB_MICROSOFT_CLIENT_ID', 'HUB_MICROSOFT_CLIENT_SECRET'],
    oauth: microsoftOAuth,
    callbackStep(query, accountId) {
      const tenant = tenantOfAccountId(accountId);
      const step = microsoftOAuth.callbackError(query, tenant === null ? {} : { tenant });
      if (step === null) return null;
      return {
        next: step.next,
        declined: step.kind === 'denied',
        logged: step.logged,
        ...(step.adminConsentUrl ? { adminConsentUrl: step.adminConsentUrl } : {}),
      };
    },
  };
  const byProvider: Record<ProviderId, ProviderConnecting> = { google, microsoft };
  return { of: (provider) => byProvider[provider] };
}

/** What a provider's lifetime rules read of a connection. */
export interface GrantClock {
  hasRefreshToken: boolean;
  /** When the held refresh token was issued (the consent it came from). */
  grantedAt: Date;
  refreshedAt: Date | null;
  /** When the vendor said the refresh token ends (Google's time-based access); null = no limit given. */
  refreshTokenExpiresAt: Date | null;
}

/** The earliest moment the provider ends this grant by a rule the Hub can see coming, or null. */
export function grantDeadlineOf(
  provider: ProviderId,
  clock: GrantClock,
  policy: { testingMode: boolean },
): { at: number; reason: 'inactive' | 'time_limited_access' | 'testing_mode' } | null {
  if (provider === 'microsoft') {
    return microsoftGrantDeadline({ connectedAt: clock.grantedAt, refreshedAt: clock.refreshedAt, hasRefreshToken: clock.hasRefreshToken });
  }
  return googleGrantDeadline(clock, policy);
}

const GOOGLE_ENDED: Record<GrantReason, (name: string) => string> = {
  revoked: (name) => `${name} access has expired or was revoked; it must be connected again`,
  time_limited_access: (name) => `${name} access has ended: it was granted for a limited time; it must be connected again`,
  testing_mode: (name) =>
    `${name} access has ended: Google ends access 7 days after consent while the Hub’s Google app is in "Testing" publishing status; it must be connected again`,
  inactive: (name) => `${name} access has ended: Google ends access unused for six months; it must be connected again`,
  reauth_required: (name) => `${name} access needs the person to sign in again (a Google Workspace re-authentication policy); it must be connected again`,
  admin_policy_enforced: (name) =>
    `${name} access is blocked by the customer’s Google Workspace administrator; an administrator must allow the Hub’s app and the access it needs before it can be connected again`,
  password_changed: (name) => `${name} access has ended: the account's password changed; it must be connected again`,
  user_disabled: (name) => `${name} access has ended: the account is disabled; an administrator must restore it before it can be connected again`,
  consent_required: (name) => `${name} access lacks the consent the Hub needs; it must be connected again`,
};

/**
 * The error a tool call gets for a grant the provider no longer honours, saying why: INTEGRATION_EXPIRED, or
 * INTEGRATION_PERMISSION_DENIED where the grant lacks consent (Microsoft's consent_required) — the same reason is the
 * same code whichever provider answered.
 */
export function grantEndedError(provider: ProviderId, reason: GrantReason | null, displayName: string): HubError {
  const why = reason ?? 'revoked';
  if (provider === 'microsoft' && why !== 'time_limited_access' && why !== 'testing_mode') {
    const outcome = REFUSAL_OUTCOMES[why === 'revoked' ? 'invalid_grant' : why];
    return hubError(outcome.code, `${displayName} access ${outcome.says}`, reason === null ? {} : { details: { reason } });
  }
  const code = why === 'consent_required' ? 'INTEGRATION_PERMISSION_DENIED' : 'INTEGRATION_EXPIRED';
  return hubError(code, GOOGLE_ENDED[why](displayName), reason === null ? {} : { details: { reason } });
}
