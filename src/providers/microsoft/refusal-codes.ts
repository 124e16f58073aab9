import type { RefusalCause } from '../../core/provider';
import { type HubError, hubError } from '../../core/errors';

/**
 * Every AADSTS number a refresh_token grant can meet that ends the grant for good, one row each: the number, its
 * name in Microsoft's table, the Hub's cause, and which of the Hub's errors a tool call then gets.
 *
 * Sources: learn.microsoft.com/entra/identity-platform/reference-error-codes (names and meanings, quoted in the
 * notes), refresh-tokens ("Token revocation": a password change or reset and revokeSignInSessions invalidate refresh
 * tokens; "Token lifetime": 90 days of inactivity), concept-conditional-access-session (sign-in frequency),
 * v2-admin-consent. Microsoft warns the numbers grow more granular over time: aadsts.ts falls back on the OAuth
 * `error` (invalid_grant, interaction_required, consent_required) for a number not listed here.
 */

export interface RefusalRow {
  code: number;
  name: string;
  cause: RefusalCause;
}

const row = (code: number, name: string, cause: RefusalCause): RefusalRow => ({ code, name, cause });

export const REFUSAL_ROWS: readonly RefusalRow[] = [
  // "The refresh token has expired due to inactivity. The token was issued on {issueDate} and was inactive for {time}."
  row(700082, 'ExpiredOrRevokedGrantInactiveToken', 'inactive'),
  // "ExpiredOrRevokedGrant - The refresh token has expired due to inactivity. The token was issued on XXX and was
  // inactive for a certain amount of time."
  row(70008, 'ExpiredOrRevokedGrant', 'inactive'),
  // "FreshTokenNeeded - The provided grant has expired due to it being revoked, and a fresh auth token is needed":
  // a password change or reset, or the user's sessions revoked (refresh-tokens, "Token revocation").
  row(50173, 'FreshTokenNeeded', 'password_changed'),
  row(50132, 'SsoArtifactInvalidOrExpired', 'password_changed'), // "due to password expiration or recent password change"
  row(50133, 'SsoArtifactRevoked', 'password_changed'), // "due to password expiration or recent password change"
  row(50055, 'InvalidPasswordExpiredPassword', 'password_changed'), // "The password is expired. The user's password is expired"
  row(50144, 'InvalidPasswordExpiredOnPremPassword', 'password_changed'), // "the user's Active Directory password has expired"
  row(50135, 'PasswordChangeCompromisedPassword', 'password_changed'), // "Password change is required due to account risk"
  row(50057, 'UserDisabled', 'user_disabled'), // "The user account is disabled"
  row(50034, 'UserAccountNotFound', 'user_disabled'), // "the account must be added to the directory": deleted
  row(50020, 'UserUnauthorized', 'user_disabled'), // a guest account that no longer exists in the tenant
  row(65001, 'DelegationDoesNotExist', 'consent_required'), // "The user or administrator hasn't consented to use the application"
  row(53003, 'BlockedByConditionalAccess', 'admin_policy_enforced'), // "Access has been blocked by Conditional Access policies"
  row(53000, 'DeviceNotCompliant', 'admin_policy_enforced'), // "Conditional Access policy requires a compliant device"
  row(53001, 'DeviceNotDomainJoined', 'admin_policy_enforced'), // "requires a domain joined device"
  row(53002, 'ApplicationUsedIsNotAnApprovedApp', 'admin_policy_enforced'), // "The app used isn't an approved app"
  row(530032, 'BlockedByConditionalAccessOnSecurityPolicy', 'admin_policy_enforced'), // "The tenant admin has configured a security policy"
  row(530035, 'BlockedBySecurityDefaults', 'admin_policy_enforced'), // "Access has been blocked by security defaults"
  row(50131, 'ConditionalAccessFailed', 'admin_policy_enforced'), // "various Conditional Access errors"
  row(50105, 'EntitlementGrantsNotFound', 'admin_policy_enforced'), // "The signed in user isn't assigned to a role for the signed in app"
  row(7000112, 'UnauthorizedClientApplicationDisabled', 'admin_policy_enforced'), // "The application is disabled"
  row(50097, 'DeviceAuthenticationRequired', 'admin_policy_enforced'), // "Device authentication is required"
  row(50129, 'DeviceIsNotWorkplaceJoined', 'admin_policy_enforced'), // "Workplace join is required to register the device"
  row(135011, 'DeviceDisabled', 'admin_policy_enforced'), // "Device used during the authentication is disabled"
  row(500021, 'TenantRestricted', 'admin_policy_enforced'), // "Access to '{tenant}' tenant is denied" (tenant restrictions)
  row(50072, 'UserStrongAuthEnrollmentRequiredInterrupt', 'reauth_required'), // "User needs to enroll for second factor authentication"
  row(50074, 'UserStrongAuthClientAuthNRequiredInterrupt', 'reauth_required'), // "Strong authentication is required"
  row(50076, 'UserStrongAuthClientAuthNRequired', 'reauth_required'), // "you must use multi-factor authentication"
  row(50078, 'UserStrongAuthExpired', 'reauth_required'), // "Presented multi-factor authentication has expired"
  row(50079, 'UserStrongAuthEnrollmentRequired', 'reauth_required'), // "the user is required to use multi-factor authentication"
  row(53004, 'ProofUpBlockedDueToRisk', 'reauth_required'), // "User needs to complete the multifactor authentication registration"
  row(50158, 'ExternalSecurityChallenge', 'reauth_required'), // "External security challenge wasn't satisfied"
  row(50199, 'CmsiInterrupt', 'reauth_required'), // "For security reasons, user confirmation is required for this request"
  row(70043, 'BadTokenDueToSignInFrequency', 'reauth_required'), // "expired or invalid due to sign-in frequency checks by Conditional Access"
  row(70044, 'BadTokenDueToSignInFrequency', 'reauth_required'), // "The session has expired or is invalid due to sign-in frequency checks"
  row(700084, 'RefreshTokenExpired', 'reauth_required'), // a refresh token of fixed lifetime ("issued to a single page app")
  row(50089, 'FlowTokenExpired', 'reauth_required'), // "Authentication failed - the user must sign in again"
  row(50058, 'UserInformationNotProvided', 'reauth_required'), // "Session information isn't sufficient for single-sign-on"
];

export const REFUSAL_BY_CODE: ReadonlyMap<number, RefusalRow> = new Map(REFUSAL_ROWS.map((r) => [r.code, r]));

/**
 * What a tool call meets once a cause ended the grant. `reason` is `details.reason` (the grant health's reason);
 * `actor` who must act before reconnecting helps. INTEGRATION_PERMISSION_DENIED when the grant stands but lacks the
 * consent for what the Hub asks (a person or an administrator consents again at the setup_url); INTEGRATION_EXPIRED
 * when the grant itself is gone — as Google's refusals are (admin_policy_enforced included, so that the same reason
 * means the same code whichever provider answered).
 */
export interface RefusalOutcome {
  code: 'INTEGRATION_EXPIRED' | 'INTEGRATION_PERMISSION_DENIED';
  reason: 'inactive' | 'revoked' | 'password_changed' | 'user_disabled' | 'consent_required' | 'admin_policy_enforced' | 'reauth_required';
  actor: 'person' | 'administrator';
  /** Completes "<integration's display name> access …". */
  says: string;
}

export const REFUSAL_OUTCOMES: Readonly<Record<RefusalCause, RefusalOutcome>> = {
  invalid_grant: { code: 'INTEGRATION_EXPIRED', reason: 'revoked', actor: 'person', says: 'has expired or was revoked; it must be connected again' },
  inactive: {
    code: 'INTEGRATION_EXPIRED',
    reason: 'inactive',
    actor: 'person',
    says: 'has ended: Microsoft ends access unused for 90 days; it must be connected again',
  },
  password_changed: {
    code: 'INTEGRATION_EXPIRED',
    reason: 'password_changed',
    actor: 'person',
    says: "has ended: the account's password changed or its sessions were revoked; it must be connected again",
  },
  reauth_required: {
    code: 'INTEGRATION_EXPIRED',
    reason: 'reauth_required',
    actor: 'person',
    says: "needs the person to sign in again (multi-factor authentication or the organisation's sign-in frequency); it must be connected again",
  },
  user_disabled: {
    code: 'INTEGRATION_EXPIRED',
    reason: 'user_disabled',
    actor: 'administrator',
    says: "has ended: the account is disabled or no longer in its organisation's directory; an administrator must restore it before it can be connected again",
  },
  admin_policy_enforced: {
    code: 'INTEGRATION_EXPIRED',
    reason: 'admin_policy_enforced',
    actor: 'administrator',
    says: "is blocked by the organisation's Microsoft Entra policies (Conditional Access, security defaults or the Hub's app disabled); an administrator must allow the Hub before it can be connected again",
  },
  consent_required: {
    code: 'INTEGRATION_PERMISSION_DENIED',
    reason: 'consent_required',
    actor: 'person',
    says: 'lacks the consent the Hub needs (it was withdrawn); it must be connected again, and if the organisation requires it, an administrator must approve the Hub first',
  },
};

/**
 * The error a tool call gets once `cause` ended the grant of the integration named `displayName` ("Outlook Mail"):
 * the code and `details.reason` above. The integrations layer adds `integration` and `setup_url` (and, for
 * INTEGRATION_PERMISSION_DENIED, the scopes required and granted) as it does for Google's.
 */
export function refusalError(cause: RefusalCause, displayName: string): HubError {
  const outcome = REFUSAL_OUTCOMES[cause];
  return hubError(outcome.code, `${displayName} access ${outcome.says}`, { details: { reason: outcome.reason } });
}
