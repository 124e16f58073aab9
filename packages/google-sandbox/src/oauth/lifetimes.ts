import type { ApiResult } from '../google-errors';
import type { World } from '../world';
import type { AccountOAuthPolicy, Grant, RefreshTokenRecord } from './state';

/**
 * How Google's refresh tokens stop working, as Google documents it — "Refresh token expiration",
 * https://developers.google.com/identity/protocols/oauth2#expiration — and as production reports show the
 * answers. Checked on every refresh_token grant, before a token is honoured:
 *
 * - Testing publishing status: an app whose OAuth consent screen is External and in "Testing" gets refresh
 *   tokens that expire in 7 days, unless it asks only for name, email and profile (same page, as quoted by
 *   unified.to/blog/why_google_oauth_returns; seen in tarickb/sasl-xoauth2#29, andrewramsay/ical_to_gcal_sync#28).
 * - Unused: "The refresh token has not been used for six months" (180 days here: never later than Google).
 * - Time-based access: the person granted access for a limited time; the code exchange says how long in
 *   `refresh_token_expires_in` (google/GoogleSignIn-iOS#565 shows the field), and the token dies then.
 * - The 100-token limit: see issueRefreshToken in tokens.ts (the oldest is dropped silently at issue time).
 * - Workspace session control: `invalid_grant` with `error_subtype: invalid_rapt` and Google's error_uri
 *   (body as in googleapis/google-auth-library-nodejs#1961, blinkk/rootjs#747, openclaw/gogcli#338). The token
 *   is not revoked — the person must sign in again, and a new consent brings a token that works.
 * - A Workspace admin restricting the app: `admin_policy_enforced` (Google lists it under refresh token
 *   expiration and as an authorization error: "The Google Account is unable to authorize one or more scopes
 *   requested due to the policies of their Google Workspace administrator"; dust-tt/dust#31975). Google's
 *   description text is not documented: the one here is ours, and the Hub must rely on the code only.
 *
 * Every expiry answers Google's plain invalid_grant ("Token has been expired or revoked."): Google does not say
 * which rule ended a token, and neither does the sandbox. An expired token is forgotten, as at Google.
 */

const DAY_MS = 86_400_000;
export const TESTING_LIFETIME_MS = 7 * DAY_MS;
export const UNUSED_LIMIT_MS = 180 * DAY_MS;
export const REAUTH_ERROR_URI = 'https://support.google.com/a/answer/9368756';

const EXPIRED_OR_REVOKED: ApiResult = { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };

export const policyOf = (world: World, email: string): AccountOAuthPolicy => world.oauth.accountPolicies.get(email) ?? {};

/** Whether `record` is past a documented end of life at `now`. */
function expired(record: RefreshTokenRecord, now: number): boolean {
  if (record.testing && now >= record.issuedAt + TESTING_LIFETIME_MS) return true;
  if (record.expiresAt !== undefined && now >= record.expiresAt) return true;
  return now - record.lastUsedAt >= UNUSED_LIMIT_MS;
}

/**
 * Google's answer to refreshing with `record` now, when it refuses; undefined when the token works (its use is
 * then recorded: a token in use does not expire for inactivity).
 */
export function refreshRefusal(world: World, record: RefreshTokenRecord, grant: Grant): ApiResult | undefined {
  const now = world.clock.now();
  const policy = policyOf(world, grant.email);
  if (policy.adminBlocked) {
    return {
      status: 400,
      body: { error: 'admin_policy_enforced', error_description: 'Access to this app is restricted by the administrator of this account.' },
    };
  }
  if (expired(record, now)) {
    world.oauth.refreshTokens.delete(record.token);
    return EXPIRED_OR_REVOKED;
  }
  if (policy.reauthAfterS !== undefined && now - record.issuedAt >= policy.reauthAfterS * 1000) {
    return {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'reauth related error (invalid_rapt)', error_uri: REAUTH_ERROR_URI, error_subtype: 'invalid_rapt' },
    };
  }
  record.lastUsedAt = now;
  return undefined;
}

/** The token response's `refresh_token_expires_in` for a time-limited token (seconds left), else nothing. */
export const expiresInField = (world: World, record: RefreshTokenRecord): { refresh_token_expires_in?: number } =>
  record.expiresAt === undefined ? {} : { refresh_token_expires_in: Math.max(0, Math.floor((record.expiresAt - world.clock.now()) / 1000)) };
