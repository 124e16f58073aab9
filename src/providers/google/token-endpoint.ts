import { GaxiosError, request } from 'gaxios';
import { z } from 'zod';
import type { Config } from '../../config';
import { hubError } from '../../core/errors';
import { classifyGoogleError } from './errors';
import type { RefreshOutcome, RefusalCause } from '../../core/provider';

/**
 * One refresh_token grant at Google's token endpoint, and what its answer means for the connection.
 *
 * gaxios directly rather than OAuth2Client.refreshAccessToken(): that method retries POSTs on its own
 * (RETRY_CONFIG, up to 3 more requests on a 5xx) and takes no AbortSignal, so it could neither be bounded by the
 * tool call's deadline nor be counted on to send one request. Here: one request, client_secret_post as
 * google-auth-library sends it, a per-request timeout and the caller's signal.
 */

export type TokenEndpoint = (refreshToken: string, signal: AbortSignal) => Promise<RefreshOutcome>;

const answerSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  refresh_token_expires_in: z.number().positive().optional(),
});

/**
 * Refusals Google qualifies beyond plain invalid_grant, as reported from production (the bodies are Google's):
 * - `{"error":"invalid_grant","error_description":"reauth related error (invalid_rapt)","error_subtype":"invalid_rapt",
 *   "error_uri":"https://support.google.com/a/answer/9368756"}` — a Workspace session-control policy wants the
 *   person to sign in again (googleapis/google-auth-library-nodejs#1961, blinkk/rootjs#747; `rapt_required`:
 *   minodisk/bigquery-runner#47);
 * - `{"error":"admin_policy_enforced",…}` — the Workspace admin restricts the app or its scopes (Google's
 *   "Refresh token expiration" and web-server "admin_policy_enforced" docs; dust-tt/dust#31975).
 */
const refusalSchema = z.object({ error: z.string().max(200), error_subtype: z.string().max(200).optional() });
const REAUTH_SUBTYPES: ReadonlySet<string> = new Set(['invalid_rapt', 'rapt_required']);

const WHAT = 'the access token refresh';

export function createTokenEndpoint(google: Config['google'], timeoutMs: number): TokenEndpoint {
  return async (refreshToken, signal) => {
    const startedAt = Date.now();
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
    if (google.clientId) form.set('client_id', google.clientId);
    if (google.clientSecret) form.set('client_secret', google.clientSecret);
    let data: unknown;
    try {
      const res = await request({
        url: google.endpoints.tokenUrl,
        method: 'POST',
        data: form,
        responseType: 'json',
        retry: false,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      data = res.data;
    } catch (err) {
      return failure(err, signal);
    }
    const answer = answerSchema.safeParse(data);
    if (!answer.success) {
      return {
        kind: 'failed',
        misconfigured: false,
        error: hubError('EXTERNAL_API_ERROR', `Google answered ${WHAT} without a usable token`, { retryable: true, details: { reason: 'refresh_failed' } }),
      };
    }
    const a = answer.data;
    return {
      kind: 'refreshed',
      accessToken: a.access_token,
      expiresAt: a.expires_in === undefined ? null : new Date(startedAt + a.expires_in * 1000),
      ...(a.refresh_token !== undefined && a.refresh_token !== refreshToken ? { refreshToken: a.refresh_token } : {}),
      ...(a.scope ? { scopes: a.scope.split(' ').filter(Boolean) } : {}),
      ...(a.refresh_token_expires_in !== undefined ? { refreshTokenExpiresAt: new Date(startedAt + a.refresh_token_expires_in * 1000) } : {}),
    };
  };
}

/** Whether a 400 from the token endpoint ends the grant, and why; undefined when it is about the Hub's request. */
function refusalCause(err: unknown): RefusalCause | undefined {
  let data: unknown = err instanceof GaxiosError ? err.response?.data : undefined;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      return undefined;
    }
  }
  const body = refusalSchema.safeParse(data);
  if (!body.success) return undefined;
  const { error, error_subtype: subtype } = body.data;
  if (error === 'admin_policy_enforced' || subtype === 'admin_policy_enforced') return 'admin_policy_enforced';
  if (error !== 'invalid_grant') return undefined;
  return subtype !== undefined && REAUTH_SUBTYPES.has(subtype) ? 'reauth_required' : 'invalid_grant';
}

/** Maps a failed token request with the upstream classification (which reads OAuth's `{error}` bodies too). */
function failure(err: unknown, signal: AbortSignal): RefreshOutcome {
  const classified = classifyGoogleError(err, { operation: WHAT });
  if (!classified) {
    if (!signal.aborted) throw err; // not a transport or HTTP failure: a bug
    return {
      kind: 'failed',
      misconfigured: false,
      error: hubError('EXTERNAL_API_ERROR', `Google did not answer ${WHAT} in time`, { retryable: true, details: { reason: 'timeout' } }),
    };
  }
  const cause = classified.status === 400 ? refusalCause(err) : undefined;
  if (cause !== undefined) {
    const said = classified.error.details?.message;
    return { kind: 'invalid_grant', cause, description: `${classified.reason ?? 'invalid_grant'}${said === undefined ? '' : `: ${String(said)}`}` };
  }
  switch (classified.kind) {
    case 'server_error':
    case 'network':
    case 'timeout':
    case 'rate_limited': {
      const retryAfterS = classified.retryAfterMs === undefined ? undefined : Math.ceil(classified.retryAfterMs / 1000);
      const status = classified.status === undefined ? {} : { upstream_status: classified.status };
      return {
        kind: 'failed',
        misconfigured: false,
        error: hubError('EXTERNAL_API_ERROR', `Google could not refresh the access token right now (${classified.kind.replace('_', ' ')}); retry shortly`, {
          retryable: true,
          details: { reason: 'refresh_failed', ...status },
          ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        }),
      };
    }
    default:
      // invalid_client, unauthorized_client, invalid_request…: the Hub's OAuth client is wrong, not the grant.
      return {
        kind: 'failed',
        misconfigured: true,
        error: hubError(
          'EXTERNAL_API_ERROR',
          'Google refused to refresh the access token for the Hub’s OAuth client; the Hub’s Google configuration needs attention',
          {
            retryable: false,
            details: {
              reason: 'refresh_rejected',
              ...(classified.status ? { upstream_status: classified.status } : {}),
              ...(classified.reason ? { google_reason: classified.reason } : {}),
            },
          },
        ),
      };
  }
}
