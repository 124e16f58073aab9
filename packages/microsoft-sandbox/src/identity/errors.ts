import type { Response } from 'express';
import type { World } from '../world';
import { guid } from '../ids';

/**
 * The identity platform's error answers, as its token endpoint sends them
 * (learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow#error-response-1, and the AADSTS
 * table in reference-error-codes): `error`, an `error_description` that begins with the AADSTS code and ends
 * with the trace id, correlation id and timestamp, `error_codes`, `timestamp`, `trace_id`, `correlation_id`,
 * `error_uri`, and for some grants a `suberror` (MSAL reads consent_required, bad_token…).
 */

export interface AadError {
  status: number;
  error: string;
  code: number;
  message: string;
  suberror?: string;
  claims?: string;
}

/** `2026-01-05 09:00:00Z`: the identity platform's timestamp format (seconds, a space, a Z). */
export const aadTimestamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');

export function aadBody(world: World, e: AadError, correlationId: string | undefined) {
  const traceId = guid(world.random);
  const correlation = correlationId && /^[0-9a-f-]{36}$/i.test(correlationId) ? correlationId : guid(world.random);
  const timestamp = aadTimestamp(world.clock.now());
  return {
    error: e.error,
    error_description: `AADSTS${e.code}: ${e.message} Trace ID: ${traceId} Correlation ID: ${correlation} Timestamp: ${timestamp}`,
    error_codes: [e.code],
    timestamp,
    trace_id: traceId,
    correlation_id: correlation,
    error_uri: `https://login.microsoftonline.com/error?code=${e.code}`,
    ...(e.suberror ? { suberror: e.suberror } : {}),
    ...(e.claims ? { claims: e.claims } : {}),
  };
}

export function sendAadError(world: World, res: Response, e: AadError, correlationId: string | undefined) {
  res
    .status(e.status)
    .set('Cache-Control', 'no-store, no-cache')
    .json(aadBody(world, e, correlationId));
}

/** The errors the sandbox sends, worded as the AADSTS reference words them. */
export const AAD = {
  missingParameter: (name: string): AadError => ({
    status: 400,
    error: 'invalid_request',
    code: 900144,
    message: `The request body must contain the following parameter: '${name}'.`,
  }),
  unsupportedGrant: (grant: string): AadError => ({
    status: 400,
    error: 'unsupported_grant_type',
    code: 70003,
    message: `The app requested an unsupported grant type '${grant}'.`,
  }),
  tenantNotFound: (tenant: string): AadError => ({
    status: 400,
    error: 'invalid_tenant',
    code: 90002,
    message: `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
  }),
  unknownClient: (clientId: string, tenant: string): AadError => ({
    status: 400,
    error: 'unauthorized_client',
    code: 700016,
    message: `Application with identifier '${clientId}' was not found in the directory '${tenant}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.`,
  }),
  missingSecret: (): AadError => ({
    status: 401,
    error: 'invalid_client',
    code: 7000218,
    message: "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
  }),
  badSecret: (clientId: string): AadError => ({
    status: 401,
    error: 'invalid_client',
    code: 7000215,
    message: `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
  }),
  redirectMismatch: (uri: string, clientId: string): AadError => ({
    status: 400,
    error: 'invalid_request',
    code: 50011,
    message: `The redirect URI '${uri}' specified in the request does not match the redirect URIs configured for the application '${clientId}'.`,
  }),
  badScope: (scope: string): AadError => ({
    status: 400,
    error: 'invalid_scope',
    code: 650053,
    message: `The application asked for scope '${scope}' that doesn't exist on the resource '00000003-0000-0000-c000-000000000000'. Contact the app vendor.`,
  }),
  malformedGrant: (): AadError => ({ status: 400, error: 'invalid_grant', code: 9002313, message: 'Invalid request. Request is malformed or invalid.' }),
  codeRedeemed: (): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 54005,
    message: 'OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.',
  }),
  codeExpired: (): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 70008,
    message:
      'The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource.',
    suberror: 'bad_token',
  }),
  grantClientMismatch: (): AadError => ({ status: 400, error: 'invalid_grant', code: 70000, message: 'Provided grant is invalid or malformed.' }),
  pkceMismatch: (): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 501481,
    message: 'The Code_Verifier does not match the code_challenge supplied in the authorization request.',
  }),
  pkceMissing: (): AadError => ({
    status: 400,
    error: 'invalid_request',
    code: 50148,
    message: 'The code_verifier does not match the code_challenge supplied in the authorization request for PKCE.',
  }),
  redirectChanged: (): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 500112,
    message: 'The reply address does not match the reply address provided when requesting Authorization code.',
  }),
  inactive: (issuedAt: string): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 700082,
    message: `The refresh token has expired due to inactivity. The token was issued on ${issuedAt} and was inactive for 90.00:00:00.`,
    suberror: 'bad_token',
  }),
  revoked: (issuedAt: string, validFrom: string, reason: 'password' | 'revoked' | null): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 50173,
    message:
      reason === 'password'
        ? `The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password. The grant was issued on '${issuedAt}' and the TokensValidFrom date (before which tokens are not valid) for this user is '${validFrom}'.`
        : `The provided grant has expired due to it being revoked, a fresh auth token is needed. Either an admin or a user revoked the tokens for this user, causing subsequent token refreshes to fail and require reauthentication. The grant was issued on '${issuedAt}' and the TokensValidFrom date (before which tokens are not valid) for this user is '${validFrom}'.`,
    suberror: 'bad_token',
  }),
  userDisabled: (): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 50057,
    message: 'The user account is disabled.',
    suberror: 'user_account_disabled',
  }),
  consentRequired: (clientId: string, appName: string): AadError => ({
    status: 400,
    error: 'invalid_grant',
    code: 65001,
    message: `The user or administrator has not consented to use the application with ID '${clientId}' named '${appName}'. Send an interactive authorization request for this user and resource.`,
    suberror: 'consent_required',
  }),
  adminConsentRequired: (): AadError => ({ status: 400, error: 'access_denied', code: 90094, message: 'The grant requires admin permission.' }),
  userDeclined: (): AadError => ({ status: 400, error: 'access_denied', code: 65004, message: 'User declined to consent to access the app.' }),
};
