/**
 * How long a Google connection's grant (its refresh token) keeps working, from what Google documents
 * (https://developers.google.com/identity/protocols/oauth2#expiration, "Refresh token expiration"):
 *
 * - time-based access: the person granted access for a limited time; Google says when it ends in the token
 *   response (`refresh_token_expires_in`), stored as refresh_token_expires_at;
 * - an app whose OAuth consent screen is External with publishing status "Testing": 7 days after consent
 *   (HUB_GOOGLE_PUBLISHING_STATUS=testing tells the Hub so; Google's answers do not);
 * - a refresh token not used for six months (the Hub uses it only when a tool needs a new access token).
 *
 * What Google does not announce (the person revoking access, a password change on a grant with Gmail scopes, the
 * 101st refresh token for one account and client silently retiring the oldest, a Workspace admin's policy,
 * Workspace re-authentication) the Hub learns only when Google refuses a refresh. Pure.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Google: "A Google Cloud Platform project with an OAuth consent screen configured for an external user type and
 *  a publishing status of 'Testing' is issued a refresh token expiring in 7 days". */
export const TESTING_MODE_LIFETIME_MS = 7 * DAY_MS;
/** Google: "The refresh token has not been used for six months." 180 days: never later than six months. */
export const INACTIVITY_LIMIT_MS = 180 * DAY_MS;

export interface GoogleGrantTimes {
  /** When Google issued the held refresh token (the consent it came from). */
  grantedAt: Date;
  /** When the refresh token was last used; null if never since connect. */
  refreshedAt: Date | null;
  /** Google's `refresh_token_expires_in` as a date (time-based access), when it sent one. */
  refreshTokenExpiresAt: Date | null;
  /** False when no refresh token is held: nothing to expire. */
  hasRefreshToken: boolean;
}

export interface GoogleGrantDeadline {
  at: number;
  reason: 'inactive' | 'time_limited_access' | 'testing_mode';
}

/** The earliest moment Google ends this grant by a rule the Hub can see coming, or null. */
export function googleGrantDeadline(times: GoogleGrantTimes, policy: { testingMode: boolean }): GoogleGrantDeadline | null {
  if (!times.hasRefreshToken) return null;
  const granted = times.grantedAt.getTime();
  const lastUse = Math.max(granted, times.refreshedAt?.getTime() ?? 0);
  const deadlines: GoogleGrantDeadline[] = [{ at: lastUse + INACTIVITY_LIMIT_MS, reason: 'inactive' }];
  if (times.refreshTokenExpiresAt) deadlines.push({ at: times.refreshTokenExpiresAt.getTime(), reason: 'time_limited_access' });
  if (policy.testingMode) deadlines.push({ at: granted + TESTING_MODE_LIFETIME_MS, reason: 'testing_mode' });
  return deadlines.reduce((a, b) => (b.at < a.at ? b : a));
}
