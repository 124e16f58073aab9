/**
 * How long a Microsoft connection's grant (its refresh token) keeps working, from what Microsoft documents
 * (learn.microsoft.com/entra/identity-platform/refresh-tokens, "Token lifetime"): "90 days for all other scenarios"
 * than single-page apps (24 hours, fixed: not the Hub's case, a confidential web app), and "Refresh tokens replace
 * themselves with a fresh token upon every use". The 90 days are a window of inactivity (configurable-token-lifetimes:
 * MaxInactiveTime; AADSTS700082 "expired due to inactivity … inactive for 90.00:00:00"), and since refresh
 * tokens and session tokens can no longer be configured (retired January 2021), the default is the rule. The Hub
 * stores the token of every refresh, so the window restarts at the last refresh.
 *
 * The token answer carries no refresh-token lifetime (Google's `refresh_token_expires_in` has no Microsoft
 * counterpart). What Microsoft does not announce — a password reset by an admin, sessions revoked, an account
 * disabled, consent withdrawn, a Conditional Access sign-in frequency (AADSTS70043) — the Hub learns only when a
 * refresh is refused (aadsts.ts). Pure: the neutral status and admin views judge a connection with this.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A refresh token unused this long is refused (AADSTS700082). */
export const MICROSOFT_INACTIVITY_LIMIT_MS = 90 * DAY_MS;
/** `expiring` when the grant ends within this: the same three days Google's policy gives. */
export const MICROSOFT_EXPIRING_WITHIN_MS = 72 * HOUR_MS;

/** What the neutral code knows of a connection, as far as its grant's lifetime goes. */
export interface GrantTimes {
  /** When the account was connected (consent given, first refresh token). */
  connectedAt: Date;
  /** When the refresh token was last used, and so replaced; null if never since connect. */
  refreshedAt: Date | null;
  /** False when no refresh token is held: nothing to expire. */
  hasRefreshToken: boolean;
}

export interface GrantDeadline {
  /** Epoch milliseconds. */
  at: number;
  /** The only rule the Hub can see coming: 90 days without a refresh. */
  reason: 'inactive';
}

/** The moment Microsoft ends this grant by a rule the Hub can see coming, or null when it holds no refresh token. */
export function microsoftGrantDeadline(times: GrantTimes): GrantDeadline | null {
  if (!times.hasRefreshToken) return null;
  const lastUse = Math.max(times.connectedAt.getTime(), times.refreshedAt?.getTime() ?? 0);
  return { at: lastUse + MICROSOFT_INACTIVITY_LIMIT_MS, reason: 'inactive' };
}

/** `ok`, `expiring` (within three days) or `expired`, judged at `now`. */
export function microsoftGrantHealth(times: GrantTimes, now: number = Date.now()): { deadline: GrantDeadline | null; health: 'ok' | 'expiring' | 'expired' } {
  const deadline = microsoftGrantDeadline(times);
  if (deadline === null) return { deadline, health: 'ok' };
  const left = deadline.at - now;
  return { deadline, health: left <= 0 ? 'expired' : left <= MICROSOFT_EXPIRING_WITHIN_MS ? 'expiring' : 'ok' };
}
