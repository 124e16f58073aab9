import type { HubError } from './errors';
import type { Capability, Permission, ProviderId } from './capabilities';
import type { IntegrationId } from './integrations';

/**
 * The connecting port: what the Hub needs from a vendor to connect an account and keep it connected — the
 * authorization URL, the code exchange, refresh, revocation — and what a vendor's refusals mean. Each provider
 * implements it beside its calendar and mail adapters (src/providers/<vendor>).
 */

/** What a successful code exchange hands the Hub. Tokens are secrets: never logged, never returned. */
export interface ConnectGrant {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  /** The scopes the vendor says it granted, in its own spelling (partial consent shows here). */
  scopes: string[];
  /** The connected account's address, from a verified source (a verified id_token, the vendor's profile); null when unknown. */
  email: string | null;
  /** When the refresh token stops working, when the vendor says so (Google's time-limited access). */
  refreshTokenExpiresAt: Date | null;
  /**
   * The vendor's stable id of the connected account, from a verified source: the same on every reconnect of the same
   * person even when the address changed (Microsoft: `{tid}/{oid}` of the verified id_token). Null or absent when the
   * vendor gives none the Hub verifies; then the address is all there is to compare.
   */
  accountId?: string | null;
}

/**
 * rejected: the code or verifier was refused (expired, reused) — the person starts over; unavailable: the vendor
 * is down or slow — try later; misconfigured: the Hub's own client settings are wrong; unverifiable: the answer
 * could not be trusted (bad id_token, wrong shape); admin_consent_required: the person's organisation requires an
 * administrator to approve the Hub first (`adminConsentUrl` leads there).
 */
export type ExchangeFailure = 'rejected' | 'unavailable' | 'misconfigured' | 'unverifiable' | 'admin_consent_required';

export type ExchangeOutcome = { ok: true; tokens: ConnectGrant } | { ok: false; failure: ExchangeFailure; adminConsentUrl?: string };

/**
 * Why a vendor refused a refresh token for good: only a person (or an administrator, then a person) can fix it.
 * The shared causes come first; a provider maps its own codes (Google's invalid_rapt, Microsoft's AADSTS numbers)
 * onto them.
 */
export type RefusalCause =
  'invalid_grant' | 'reauth_required' | 'admin_policy_enforced' | 'consent_required' | 'password_changed' | 'user_disabled' | 'inactive';

/**
 * Why a grant stopped working, or is about to: a refusal cause (the plain invalid_grant as `revoked`) or a deadline
 * a provider announces. The one list the store's expiry_reason column, grant health and the error's
 * `details.reason` all use.
 */
export type GrantReason =
  /** The person granted access for a limited time (Google sent refresh_token_expires_in). */
  | 'time_limited_access'
  /** The Hub's Google OAuth app is in "Testing": Google ends every grant 7 days after consent. */
  | 'testing_mode'
  /** Unused for too long (Google: six months; Microsoft: 90 days). */
  | 'inactive'
  /** The vendor refused the grant without saying more: revoked, password changed, over Google's 100-token limit… */
  | 'revoked'
  /** The customer's Workspace or Entra policy requires the person to sign in again (invalid_rapt, MFA, sign-in frequency). */
  | 'reauth_required'
  /** The customer's administrator blocks the Hub's app or the access it needs (Workspace policy, Conditional Access). */
  | 'admin_policy_enforced'
  /** Microsoft: the account's password changed or was reset, or its sessions were revoked. */
  | 'password_changed'
  /** Microsoft: the account is disabled, deleted, or no longer in the tenant. */
  | 'user_disabled'
  /** Microsoft: the consent the Hub needs was withdrawn (INTEGRATION_PERMISSION_DENIED). */
  | 'consent_required';

export type RefreshOutcome =
  | {
      kind: 'refreshed';
      accessToken: string;
      expiresAt: Date | null;
      /** Only when the vendor rotated it: the caller stores it atomically with the access token. */
      refreshToken?: string;
      scopes?: string[];
      refreshTokenExpiresAt?: Date;
    }
  | { kind: 'invalid_grant'; cause: RefusalCause; description: string }
  /** The vendor down or slow (retryable), or the Hub itself misconfigured (not retryable). */
  | { kind: 'failed'; error: HubError; misconfigured: boolean };

/** revoked: the vendor confirmed the grant is dead now (or already was); refused/failed: it did not; unsupported: the vendor has no way to revoke one grant. */
export type RevokeOutcome = 'revoked' | 'refused' | 'unsupported' | HubError;

export interface ProviderOAuth {
  /** False when no client id/secret is configured: connecting cannot work. */
  readonly configured: boolean;
  /** The vendor's consent page. `freshConsent`: ask again even for an account that consented before (so a refresh token is minted). */
  authorizeUrl(p: { scopes: readonly string[]; state: string; codeChallenge: string; freshConsent: boolean; loginHint?: string }): string;
  exchange(code: string, codeVerifier: string): Promise<ExchangeOutcome>;
  refresh(refreshToken: string, signal: AbortSignal): Promise<RefreshOutcome>;
  revoke(token: string, signal: AbortSignal): Promise<RevokeOutcome>;
}

/** One integration a provider offers: one capability of one vendor (google_calendar, outlook_mail). */
export interface IntegrationSpec {
  id: IntegrationId;
  provider: ProviderId;
  capability: Capability;
  displayName: string;
  /** Least-privilege scopes asked for on connect, in the vendor's spelling. */
  scopes: readonly string[];
}

/** How a provider spells permissions, and which of its scopes imply others. */
export interface ScopeRules {
  scopesFor(permission: Permission): readonly string[];
  /** Whether `granted` covers `required`: the same scope, or a broader one that implies it. */
  grants(granted: readonly string[], required: string): boolean;
  /** The contract's short form of a scope (Google's URL without its prefix). */
  short(scope: string): string;
}
