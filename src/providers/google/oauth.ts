import { GaxiosError, request } from 'gaxios';
import { CodeChallengeMethod } from 'google-auth-library';
import { z } from 'zod';
import type { Config } from '../../config';
import { hubError } from '../../core/errors';
import type { ExchangeFailure, ExchangeOutcome, ProviderOAuth, RevokeOutcome } from '../../core/provider';
import type { FailureKind } from '../../resilience/failures';
import type { Logger } from '../../logger';
import type { GoogleClients } from './clients';
import { classifyGoogleError } from './errors';
import { createTokenEndpoint } from './token-endpoint';

/**
 * Google's side of the connecting port (core/provider.ts): the consent URL, the code exchange (PKCE) and the
 * identity in the id_token, refresh (token-endpoint.ts) and revocation. Everything Google answers is validated
 * before the Hub believes it; failures come back as values saying whose problem they are (the person's,
 * Google's, or the Hub's configuration).
 */

/** Identity scopes asked for next to the integration's own: the id_token then names the connected account. */
export const IDENTITY_SCOPES = ['openid', 'email'] as const;

/** Worth retrying a revocation: Google (or the way to it) failed, not the token. */
const TRANSIENT: ReadonlySet<FailureKind> = new Set(['server_error', 'network', 'timeout', 'rate_limited']);

const tokenResponse = z.object({
  access_token: z.string().min(1).max(4096),
  refresh_token: z.string().min(1).max(4096).nullish(),
  expires_in: z.number().positive().nullish(),
  scope: z.string().max(8192),
  id_token: z.string().min(1).max(16_384).nullish(),
  token_type: z.string().nullish(),
  refresh_token_expires_in: z.number().positive().nullish(),
});

function classify(err: unknown): ExchangeFailure {
  if (err instanceof GaxiosError) {
    const status = err.response?.status;
    if (status === undefined || status >= 500 || status === 429 || status === 408) return 'unavailable';
    const data: unknown = err.response?.data;
    const error = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined;
    return error === 'invalid_grant' ? 'rejected' : 'misconfigured';
  }
  const code = (err as { code?: unknown; name?: unknown })?.code ?? (err as { name?: unknown })?.name;
  if (typeof code === 'string') return 'unavailable'; // ECONNREFUSED, ETIMEDOUT, AbortError…
  throw err;
}

export function createGoogleOAuth(deps: { config: Config; google: GoogleClients; logger: Logger }): ProviderOAuth {
  const { config, google, logger } = deps;
  const clientId = config.google.clientId;
  const client = () => google.oauth2({ redirectUri: config.connect.redirectUri, timeoutMs: config.upstream.attemptTimeoutMs });

  const refresh = createTokenEndpoint(config.google, config.upstream.attemptTimeoutMs);

  return {
    configured: Boolean(clientId && config.google.clientSecret),

    /**
     * `freshConsent`: prompt=consent, so Google shows the consent screen and mints a refresh token even for an
     * account that authorized the Hub before; without it a returning account gets none (see grant-reuse.ts).
     */
    authorizeUrl({ scopes, state, codeChallenge, freshConsent, loginHint }) {
      return client().generateAuthUrl({
        access_type: 'offline',
        ...(freshConsent ? { prompt: 'consent' } : {}),
        include_granted_scopes: true,
        scope: [...scopes, ...IDENTITY_SCOPES],
        state,
        code_challenge: codeChallenge,
        code_challenge_method: CodeChallengeMethod.S256,
        ...(loginHint ? { login_hint: loginHint } : {}),
      });
    },

    async exchange(code, codeVerifier): Promise<ExchangeOutcome> {
      // One request, never retried: an authorization code is single-use, and Google answers a replayed code by
      // revoking what the first exchange issued — google-auth-library's getToken() would retry a 5xx by itself.
      const startedAt = Date.now();
      const form = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: config.connect.redirectUri });
      if (clientId) form.set('client_id', clientId);
      if (config.google.clientSecret) form.set('client_secret', config.google.clientSecret);
      let raw: unknown;
      try {
        const res = await request({
          url: config.google.endpoints.tokenUrl,
          method: 'POST',
          data: form,
          responseType: 'json',
          retry: false,
          signal: AbortSignal.timeout(config.upstream.attemptTimeoutMs),
        });
        raw = res.data;
      } catch (err) {
        const failure = classify(err);
        logger.warn({ failure, status: err instanceof GaxiosError ? err.response?.status : undefined }, 'Google refused or failed the code exchange');
        return { ok: false, failure };
      }
      const oauth = client();
      const parsed = tokenResponse.safeParse(raw);
      if (!parsed.success) {
        logger.error({ issues: parsed.error.issues.map((i) => i.path.join('.')) }, "Google's token response did not have the expected shape");
        return { ok: false, failure: 'unverifiable' };
      }
      const t = parsed.data;
      let email: string | null = null;
      if (t.id_token) {
        try {
          const ticket = await oauth.verifyIdToken({ idToken: t.id_token, audience: clientId! });
          const payload = ticket.getPayload();
          email = payload?.email && payload.email_verified !== false ? payload.email.toLowerCase() : null;
        } catch (err) {
          if (err instanceof GaxiosError || (err as { code?: unknown })?.code) return { ok: false, failure: 'unavailable' };
          // The library's messages append the token or its payload after a colon: keep only the reason.
          const reason = err instanceof Error ? (err.message.split(':')[0] ?? '').slice(0, 80) : 'unknown';
          logger.error({ reason }, 'the id_token from Google did not verify');
          return { ok: false, failure: 'unverifiable' };
        }
      }
      return {
        ok: true,
        tokens: {
          accessToken: t.access_token,
          refreshToken: t.refresh_token ?? null,
          expiresAt: t.expires_in ? new Date(startedAt + t.expires_in * 1000) : null,
          scopes: [...new Set(t.scope.split(/\s+/).filter(Boolean))],
          email,
          refreshTokenExpiresAt: t.refresh_token && t.refresh_token_expires_in ? new Date(startedAt + t.refresh_token_expires_in * 1000) : null,
        },
      };
    },

    refresh,

    /**
     * One POST to Google's revoke endpoint, the token in the form body (kept out of URLs and thus out of any
     * proxy log). Sent through the OAuth client's own transport rather than `revokeToken()`, which puts the token
     * in the query string, takes no abort signal and retries 5xx by itself for seconds: here one bounded attempt
     * decides, and the admin's retry is the retry. A token Google already considers dead (`invalid_token`) counts
     * as revoked.
     */
    async revoke(token, signal): Promise<RevokeOutcome> {
      const oauth = google.oauth2();
      try {
        await oauth.transporter.request({
          url: oauth.endpoints.oauth2RevokeUrl,
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          data: new URLSearchParams({ token }).toString(),
          signal: AbortSignal.any([signal, AbortSignal.timeout(config.upstream.attemptTimeoutMs)]),
          retry: false,
        });
        return 'revoked';
      } catch (err) {
        const failure = classifyGoogleError(err, { operation: 'the token revocation' });
        if (!failure) throw err;
        if (failure.status === 400 && failure.reason === 'invalid_token') return 'revoked'; // already revoked or expired
        if (!TRANSIENT.has(failure.kind)) return 'refused';
        const retryAfterS = failure.retryAfterMs === undefined ? undefined : failure.retryAfterMs / 1000;
        return hubError('EXTERNAL_API_ERROR', 'Google could not revoke the grant right now; the connection was kept — retry the request', {
          retryable: true,
          details: { reason: failure.kind, ...(failure.status !== undefined ? { upstream_status: failure.status } : {}) },
          ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        });
      }
    },
  };
}
