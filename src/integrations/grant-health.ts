import type { Config } from '../config';
import type { HubError } from '../core/errors';
import type { GrantReason, RefusalCause as CoreRefusalCause } from '../core/provider';
import { INTEGRATIONS } from './catalog';
import { type IntegrationId } from '../core/integrations';
import type { CredentialRecord } from '../store/credential-store';
import { grantDeadlineOf, grantEndedError } from '../providers/connecting';

/**
 * How long a connection's grant (its refresh token) keeps working, as its provider's rules say
 * (src/providers/google/grant-lifetime.ts: time-limited access, Testing mode, six months unused;
 * src/providers/microsoft/grant-lifetime.ts: 90 days unused), reached through the connecting registry
 * (src/providers/connecting.ts). What a vendor does not announce — a revocation, a password change, an
 * administrator's policy, a re-authentication — the Hub learns only when a refresh is refused: the row is then
 * expired with the reason the vendor gave. Pure: the status endpoint and the admin list both judge a row with this.
 */

export type GrantHealth = 'ok' | 'expiring' | 'expired';

/** Why a grant ended or is ending: the core's one list (core/provider.ts). */
export type { GrantReason };

/** What a vendor refused a refresh with (core/provider.ts): the plain invalid_grant, or a cause it names. */
export type RefusalCause = CoreRefusalCause;

export interface GrantPolicy {
  /** The Hub's Google OAuth app is in Google's "Testing" publishing status. */
  testingMode: boolean;
}

export const grantPolicyFor = (google: Pick<Config['google'], 'publishingStatus'>): GrantPolicy => ({ testingMode: google.publishingStatus === 'testing' });

export interface GrantView {
  /** When the grant stops (or stopped) working at the latest, as far as the Hub knows; null = no known limit. */
  expires_at: string | null;
  health: GrantHealth;
  /** Why it is expiring or expired; null when ok. */
  reason: GrantReason | null;
}

/** `expiring` when the grant ends within this (three days, for every provider). */
export const EXPIRING_WITHIN_MS = 72 * 3_600_000;
export { INACTIVITY_LIMIT_MS, TESTING_MODE_LIFETIME_MS } from '../providers/google/grant-lifetime';

interface Deadline {
  at: number;
  reason: GrantReason;
}

/** What grant health reads of a stored credential: the row's grant-lifetime fields, and whether a refresh token is held. */
export type GrantFacts = Pick<
  CredentialRecord,
  'integration' | 'grantedAt' | 'createdAt' | 'lastRefreshedAt' | 'refreshTokenExpiresAt' | 'status' | 'expiryReason' | 'lastErrorAt'
> & { sealed: { refresh: unknown } };

/** The earliest moment the connection's provider ends this grant by a rule the Hub can see coming, or null. */
export function grantDeadline(record: GrantFacts, policy: GrantPolicy): Deadline | null {
  return grantDeadlineOf(
    INTEGRATIONS[record.integration].provider,
    {
      hasRefreshToken: record.sealed.refresh !== null,
      grantedAt: record.grantedAt ?? record.createdAt,
      refreshedAt: record.lastRefreshedAt,
      refreshTokenExpiresAt: record.refreshTokenExpiresAt,
    },
    policy,
  );
}

export function grantHealth(record: GrantFacts, policy: GrantPolicy, now: number = Date.now()): GrantView {
  const deadline = grantDeadline(record, policy);
  if (record.status === 'expired') {
    const reason = record.expiryReason ?? 'revoked';
    // The deadline that ended it, when that is the reason; else the moment the Hub learned of it.
    const at = deadline && deadline.reason === reason ? deadline.at : (record.lastErrorAt?.getTime() ?? null);
    return { expires_at: at === null ? null : new Date(at).toISOString(), health: 'expired', reason };
  }
  if (deadline === null) return { expires_at: null, health: 'ok', reason: null };
  const left = deadline.at - now;
  return {
    expires_at: new Date(deadline.at).toISOString(),
    health: left <= 0 ? 'expired' : left <= EXPIRING_WITHIN_MS ? 'expiring' : 'ok',
    reason: left <= EXPIRING_WITHIN_MS ? deadline.reason : null,
  };
}

/** Why a refused refresh ended the grant: what the vendor named, else the deadline it passed, else plain revoked. */
export function refusalReason(record: GrantFacts, cause: RefusalCause, policy: GrantPolicy, now: number = Date.now()): GrantReason {
  if (cause !== 'invalid_grant') return cause;
  const deadline = grantDeadline(record, policy);
  return deadline !== null && deadline.at <= now ? deadline.reason : 'revoked';
}

/**
 * INTEGRATION_EXPIRED for a grant its vendor no longer honours (INTEGRATION_PERMISSION_DENIED when consent was
 * withdrawn), saying why when the Hub knows.
 */
export function grantExpiredError(integration: IntegrationId, reason: GrantReason | null): HubError {
  const spec = INTEGRATIONS[integration];
  return grantEndedError(spec.provider, reason, spec.displayName);
}
