import type { Config } from '../config';
import { type HubError, hubError } from '../core/errors';
import { INTEGRATIONS } from './catalog';
import { type IntegrationId } from '../core/integrations';

/**
 * How long a connection's grant (its refresh token) will keep working, from what Google documents
 * (https://developers.google.com/identity/protocols/oauth2#expiration, "Refresh token expiration"):
 *
 * - time-based access: the person granted access for a limited time; Google says when it ends in the token
 *   response (`refresh_token_expires_in`), stored as refresh_token_expires_at;
 * - an app whose OAuth consent screen is External with publishing status "Testing": 7 days after consent
 *   (HUB_GOOGLE_PUBLISHING_STATUS=testing tells the Hub so; Google's answers do not);
 * - a refresh token not used for six months (the Hub uses it only when a tool needs a new access token).
 *
 * What Google does not announce (the person revoking access, a password change on a grant with Gmail scopes,
 * the 101st refresh token for one account and client silently retiring the oldest, a Workspace admin's policy,
 * Workspace re-authentication) the Hub learns only when Google refuses a refresh: the row is then expired with
 * the reason Google gave. Pure: the status endpoint and the admin list both judge a row with this.
 */

export type GrantHealth = 'ok' | 'expiring' | 'expired';

export type GrantReason =
  /** The person granted access for a limited time (Google sent refresh_token_expires_in). */
  | 'time_limited_access'
  /** The Hub's OAuth app is in "Testing": Google ends every grant 7 days after consent. */
  | 'testing_mode'
  /** Unused for six months. */
  | 'inactive'
  /** Google answered invalid_grant without saying more: revoked, password changed, over the 100-token limit… */
  | 'revoked'
  /** invalid_grant / invalid_rapt: the customer's Workspace requires the person to sign in again. */
  | 'reauth_required'
  /** The customer's Workspace admin blocks the Hub's app or the scopes it needs. */
  | 'admin_policy_enforced';

/** What Google refused a refresh with: the plain invalid_grant, or one of the two causes it names. */
export type RefusalCause = 'invalid_grant' | 'reauth_required' | 'admin_policy_enforced';

export interface GrantPolicy {
  /** The Hub's OAuth app is in Google's "Testing" publishing status. */
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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** `expiring` when the grant ends within this. */
export const EXPIRING_WITHIN_MS = 72 * HOUR_MS;
/** Google: "A Google Cloud Platform project with an OAuth consent screen configured for an external user type and
 *  a publishing status of 'Testing' is issued a refresh token expiring in 7 days". */
export const TESTING_MODE_LIFETIME_MS = 7 * DAY_MS;
/** Google: "The refresh token has not been used for six months." 180 days: never later than six months. */
export const INACTIVITY_LIMIT_MS = 180 * DAY_MS;

interface Deadline {
  at: number;
  reason: GrantReason;
}

/** The earliest moment Google ends this grant by a rule the Hub can see coming, or null. */
/** What grant health reads of a stored credential (the store's CredentialRecord has these and more). */
export interface GrantFacts {
  sealed: { refresh: unknown };
  grantedAt: Date | null;
  createdAt: Date;
  lastRefreshedAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  status: string;
  expiryReason: GrantReason | null;
  lastErrorAt: Date | null;
}

export function grantDeadline(record: GrantFacts, policy: GrantPolicy): Deadline | null {
  if (record.sealed.refresh === null) return null;
  const granted = (record.grantedAt ?? record.createdAt).getTime();
  const lastUse = Math.max(granted, record.lastRefreshedAt?.getTime() ?? 0);
  const deadlines: Deadline[] = [{ at: lastUse + INACTIVITY_LIMIT_MS, reason: 'inactive' }];
  if (record.refreshTokenExpiresAt) deadlines.push({ at: record.refreshTokenExpiresAt.getTime(), reason: 'time_limited_access' });
  if (policy.testingMode) deadlines.push({ at: granted + TESTING_MODE_LIFETIME_MS, reason: 'testing_mode' });
  return deadlines.reduce((a, b) => (b.at < a.at ? b : a));
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

/** Why a refused refresh ended the grant: what Google named, else the deadline it passed, else plain revoked. */
export function refusalReason(record: GrantFacts, cause: RefusalCause, policy: GrantPolicy, now: number = Date.now()): GrantReason {
  if (cause !== 'invalid_grant') return cause;
  const deadline = grantDeadline(record, policy);
  return deadline !== null && deadline.at <= now ? deadline.reason : 'revoked';
}

const ENDED: Record<GrantReason, (name: string) => string> = {
  revoked: (name) => `${name} access has expired or was revoked; it must be connected again`,
  time_limited_access: (name) => `${name} access has ended: it was granted for a limited time; it must be connected again`,
  testing_mode: (name) =>
    `${name} access has ended: Google ends access 7 days after consent while the Hub’s Google app is in "Testing" publishing status; it must be connected again`,
  inactive: (name) => `${name} access has ended: Google ends access unused for six months; it must be connected again`,
  reauth_required: (name) => `${name} access needs the person to sign in again (a Google Workspace re-authentication policy); it must be connected again`,
  admin_policy_enforced: (name) =>
    `${name} access is blocked by the customer’s Google Workspace administrator; an administrator must allow the Hub’s app and the access it needs before it can be connected again`,
};

/** INTEGRATION_EXPIRED for a grant Google no longer honours, saying why when the Hub knows. */
export function grantExpiredError(integration: IntegrationId, reason: GrantReason | null): HubError {
  const name = INTEGRATIONS[integration].displayName;
  return hubError('INTEGRATION_EXPIRED', ENDED[reason ?? 'revoked'](name), reason === null ? {} : { details: { reason } });
}
