import type { MicrosoftConfig } from '../../config/microsoft';
import type { RefreshOutcome } from '../../core/provider';
import { hubError } from '../../core/errors';
import { describeAadError, isTransient, refusalCauseOf } from './aadsts';
import { grantedGraphScopes } from './scopes';
import { type TokenResponse, postTokenRequest, tokenAnswerSchema } from './token-endpoint';

/**
 * One refresh_token grant at the identity platform (v2-oauth2-auth-code-flow, "Refresh the access token"): one
 * request, no retries, bounded by the caller's signal and the per-attempt timeout.
 *
 * Microsoft rotates refresh tokens: "Refresh tokens replace themselves with a fresh token upon every use" and "you're
 * expected to discard the old refresh token" (refresh-tokens; the old one is not revoked by the use). The answer's
 * new refresh token is handed back so the caller stores it atomically with the access token — keeping the old one
 * would let the grant die 90 days after connect however often it is used (grant-lifetime.ts).
 *
 * No `scope` is sent: it is optional, and without it the token is for the scopes of the original grant; the
 * answer's `scope` says what the token carries now (a consent reduced since connect shows here).
 */

const WHAT = 'the access token refresh';

const retryable = (message: string, reason: string, extra: { status?: number; retryAfterMs?: number } = {}): RefreshOutcome => ({
  kind: 'failed',
  misconfigured: false,
  error: hubError('EXTERNAL_API_ERROR', message, {
    retryable: true,
    details: { reason, ...(extra.status !== undefined ? { upstream_status: extra.status } : {}) },
    ...(extra.retryAfterMs !== undefined ? { retryAfterS: Math.max(1, Math.ceil(extra.retryAfterMs / 1000)) } : {}),
  }),
});

const misconfigured = (details: Record<string, unknown>): RefreshOutcome => ({
  kind: 'failed',
  misconfigured: true,
  error: hubError(
    'EXTERNAL_API_ERROR',
    'Microsoft refused to refresh the access token for the Hub’s app registration; the Hub’s Microsoft configuration needs attention',
    { retryable: false, details: { reason: 'refresh_rejected', ...details } },
  ),
});

/** A failed token request as a RefreshOutcome. */
function failure(res: Exclude<TokenResponse, { kind: 'answer' }>): RefreshOutcome {
  switch (res.kind) {
    case 'timeout':
      return retryable(`Microsoft did not answer ${WHAT} in time`, 'timeout');
    case 'network':
      return retryable(`Could not reach Microsoft for ${WHAT}; retry shortly`, 'network');
    case 'malformed':
      return retryable(`Microsoft answered ${WHAT} without a usable token`, 'refresh_failed', { status: res.status });
    case 'status':
      if (res.status >= 500 || res.status === 429 || res.status === 408) {
        return retryable(`Microsoft could not refresh the access token right now (HTTP ${res.status}); retry shortly`, 'refresh_failed', res);
      }
      return misconfigured({ upstream_status: res.status });
    case 'refused': {
      if (isTransient(res.error)) return retryable('Microsoft could not refresh the access token right now; retry shortly', 'refresh_failed', res);
      const cause = refusalCauseOf(res.error);
      if (cause !== undefined) return { kind: 'invalid_grant', cause, description: describeAadError(res.error) };
      // invalid_client (a wrong or expired secret), unauthorized_client, invalid_request…: the Hub's, not the grant's.
      return misconfigured({ upstream_status: res.status, microsoft_error: describeAadError(res.error) });
    }
  }
}

export type MicrosoftRefresh = (refreshToken: string, signal: AbortSignal) => Promise<RefreshOutcome>;

export function createMicrosoftRefresh(config: Pick<MicrosoftConfig, 'clientId' | 'clientSecret' | 'timeoutMs'>, tokenUrl: string): MicrosoftRefresh {
  return async (refreshToken, signal) => {
    if (!config.clientId || !config.clientSecret) return misconfigured({ microsoft_error: 'not_configured' });
    const startedAt = Date.now();
    const form = new URLSearchParams({
      client_id: config.clientId,
      client_secret: config.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    const res = await postTokenRequest(tokenUrl, form, { timeoutMs: config.timeoutMs, signal });
    if (res.kind !== 'answer') return failure(res);
    const answer = tokenAnswerSchema.safeParse(res.body);
    if (!answer.success) return retryable(`Microsoft answered ${WHAT} without a usable token`, 'refresh_failed', { status: 200 });
    const a = answer.data;
    return {
      kind: 'refreshed',
      accessToken: a.access_token,
      expiresAt: new Date(startedAt + a.expires_in * 1000),
      ...(a.refresh_token !== undefined && a.refresh_token !== refreshToken ? { refreshToken: a.refresh_token } : {}),
      ...(a.scope !== undefined ? { scopes: grantedGraphScopes(a.scope) } : {}),
    };
  };
}
