import { z } from 'zod';
import type { ExchangeFailure, RefusalCause } from '../../core/provider';
import { REFUSAL_BY_CODE } from './refusal-codes';

/**
 * What the identity platform's refusals mean for the Hub. Microsoft answers an OAuth `error` and, in
 * `error_codes` (and at the head of `error_description`), its AADSTS numbers. The `error` is what the OAuth
 * specification lets a client react to; the AADSTS number says which of the person's, the tenant's or the Hub's
 * problems it is. Microsoft warns that codes may become more granular over time, so every table below falls back
 * on the `error` when the number is unknown. Pure.
 *
 * Sources: learn.microsoft.com/entra/identity-platform/reference-error-codes (the AADSTS table and the `error`
 * table), v2-oauth2-auth-code-flow (token endpoint errors), refresh-tokens (what revokes a refresh token),
 * v2-admin-consent.
 */

export interface AadError {
  /** The OAuth `error` (invalid_grant, invalid_client, interaction_required…). */
  error: string;
  /** The AADSTS numbers, from `error_codes` or else the description's `AADSTSnnnn:` prefix. */
  codes: number[];
  /** Microsoft's `suberror` (bad_token, consent_required, user_account_disabled…), when sent. */
  suberror?: string;
}

const bodySchema = z.object({
  error: z.string().min(1).max(200),
  error_description: z.string().max(20_000).optional(),
  error_codes: z.array(z.number().int().nonnegative()).max(20).optional(),
  suberror: z.string().max(200).optional(),
});

const codeInDescription = (description: string | undefined): number[] => {
  const m = /^\s*AADSTS(\d{1,9})\b/.exec(description ?? '');
  return m ? [Number(m[1])] : [];
};

/** A token endpoint's error body, or undefined when it is not one. */
export function parseAadError(body: unknown): AadError | undefined {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) return undefined;
  const b = parsed.data;
  const codes = b.error_codes?.length ? b.error_codes : codeInDescription(b.error_description);
  return { error: b.error, codes, ...(b.suberror ? { suberror: b.suberror } : {}) };
}

/** The error an authorize redirect brings back (`error`, `error_description` in the query). */
export function aadErrorFromQuery(query: { error?: unknown; error_description?: unknown }): AadError | undefined {
  if (typeof query.error !== 'string' || query.error === '' || query.error.length > 200) return undefined;
  const description = typeof query.error_description === 'string' ? query.error_description.slice(0, 2_000) : undefined;
  return { error: query.error, codes: codeInDescription(description) };
}

/** Safe to log and to keep: the OAuth error, the AADSTS numbers and the suberror — never the description (it names the person). */
export const describeAadError = (e: AadError): string =>
  `${e.codes.length ? `${e.codes.map((c) => `AADSTS${c}`).join(',')} ` : ''}${e.error}${e.suberror ? ` (${e.suberror.replace(/[^A-Za-z0-9_]/g, '').slice(0, 40)})` : ''}`;

const has = (e: AadError, set: ReadonlySet<number>) => e.codes.some((c) => set.has(c));

/** The identity platform is overloaded or failing: worth retrying later (reference-error-codes: "transient", "retry"). */
const TRANSIENT = new Set([
  50033, // RetryableError
  50087, // SasRetryableError
  90006, // ExternalServerRetryableError
  90024, // RequestBudgetExceededError - "A transient error has occurred. Try again."
  90033, // MsodsServiceUnavailable
  90055, // TenantThrottlingError - too many incoming requests
  90090, // GraphRetryableError
  90091, // GraphServiceUnreachable
  50196, // LoopDetected - the same request too often: back off
  // IdsLocked - "The account is locked because the user tried to sign in too many times with an incorrect user ID or
  // password" (or from a malicious IP): smart lockout ends on its own ("locked out for one minute" at first,
  // howto-password-smart-lockout), so the grant is not dead — the Hub tries again later.
  50053,
]);
const TRANSIENT_ERRORS = new Set(['temporarily_unavailable', 'server_error']);

export const isTransient = (e: AadError): boolean => TRANSIENT_ERRORS.has(e.error) || has(e, TRANSIENT);

/** The tenant's administrator must approve the Hub first (the user cannot consent). */
const ADMIN_CONSENT = new Set([
  90094, // AdminConsentRequired
  90095, // AdminConsentRequiredRequestAccess - the admin consent workflow's "ask your admin"
]);
/** DelegationDoesNotExist: no consent for the app. After an interactive sign-in this means the user could not give it. */
const NO_CONSENT = 65001;

/** The Hub's own registration or request is wrong: an operator, not the person, must act. */
const HUB_MISCONFIGURED = new Set([
  7000215, // invalid client secret
  7000218, // no client secret sent
  7000222, // the client secret expired
  700016, // application not found in the directory
  700011, // application not found in the tenant
  70001, // the application is disabled
  50011, // redirect URI not registered
  500113, // no reply address registered for the application
  500112, // redirect URI differs from the authorize request's
  90002, // tenant not found
  650053, // a scope that does not exist on Graph
  70011, // invalid scope
  500011, // resource principal not found in the tenant
  65005, // misconfigured application (required resource access)
  650056, // misconfigured application
  900144, // a required parameter is missing
  90014, // a required field is missing
]);
const HUB_MISCONFIGURED_ERRORS = new Set([
  'invalid_client',
  'unauthorized_client',
  'invalid_request',
  'invalid_scope',
  'unsupported_grant_type',
  'invalid_resource',
]);

/** The code or its verifier was refused: the person starts again. */
const CODE_REJECTED = new Set([
  70008, // the code expired
  54005, // the code was already redeemed
  501481, // PKCE: the verifier does not match the challenge
  50148, // PKCE: verifier missing or not matching
  9002313, // malformed or unknown grant
  70000, // invalid grant
  700005, // the code belongs to another tenant's endpoint
]);

/**
 * What a refused code exchange means. `status` is the HTTP status of the answer. 90094/90095 and 65001 mean the
 * organisation requires an administrator's approval: the code was issued after an interactive sign-in, so a
 * missing consent is one the user was not allowed to give.
 */
export function exchangeFailureOf(e: AadError, status: number): ExchangeFailure {
  if (status >= 500 || status === 429 || isTransient(e)) return 'unavailable';
  if (has(e, ADMIN_CONSENT) || e.codes.includes(NO_CONSENT) || e.error === 'consent_required') return 'admin_consent_required';
  if (has(e, CODE_REJECTED)) return 'rejected';
  if (has(e, HUB_MISCONFIGURED) || HUB_MISCONFIGURED_ERRORS.has(e.error)) return 'misconfigured';
  // Any other refusal of the grant (a password reset or a disabled account meanwhile…): only a new sign-in helps.
  return e.error === 'invalid_grant' || e.error === 'interaction_required' || e.error === 'access_denied' ? 'rejected' : 'misconfigured';
}

/**
 * Why a refresh was refused for good, or undefined when the refusal is about the Hub's request (or transient).
 * `interaction_required` without a known number is a re-authentication; any other `invalid_grant` is the plain one.
 */
export function refusalCauseOf(e: AadError): RefusalCause | undefined {
  if (isTransient(e)) return undefined;
  for (const code of e.codes) {
    const known = REFUSAL_BY_CODE.get(code);
    if (known) return known.cause;
  }
  if (e.suberror === 'user_account_disabled') return 'user_disabled';
  if (e.suberror === 'consent_required' || e.error === 'consent_required') return 'consent_required';
  if (e.error === 'interaction_required') return 'reauth_required';
  return e.error === 'invalid_grant' ? 'invalid_grant' : undefined;
}

/** What an authorize redirect without a code says happened. */
export type CallbackErrorKind =
  /** The person declined (AADSTS65004) or cancelled. */
  | 'denied'
  /** The organisation requires an administrator to approve the Hub (AADSTS90094/90095/65001). */
  | 'admin_consent_required'
  /** An administrator has just approved the Hub through the admin-consent endpoint: the person can connect now. */
  | 'admin_consented'
  /** Conditional Access or the account's state stops the sign-in. */
  | 'blocked'
  /** Microsoft failed; try later. */
  | 'unavailable'
  /** The Hub's registration or request is wrong. */
  | 'misconfigured'
  | 'failed';

const DECLINED = 65004;

export function callbackErrorKind(e: AadError): CallbackErrorKind {
  if (isTransient(e)) return 'unavailable';
  if (has(e, ADMIN_CONSENT) || ((e.error === 'consent_required' || e.error === 'access_denied') && e.codes.includes(NO_CONSENT)))
    return 'admin_consent_required';
  if (e.codes.includes(DECLINED)) return 'denied';
  if (has(e, HUB_MISCONFIGURED) || HUB_MISCONFIGURED_ERRORS.has(e.error) || e.error === 'unsupported_response_type') return 'misconfigured';
  const cause = refusalCauseOf(e);
  if (cause === 'admin_policy_enforced' || cause === 'user_disabled') return 'blocked';
  // access_denied with no number: "Resource owner denied consent" (v2-oauth2-auth-code-flow).
  return e.error === 'access_denied' ? 'denied' : 'failed';
}
