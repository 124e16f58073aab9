import type { MicrosoftConfig } from '../../config/microsoft';
import type { ExchangeOutcome, ProviderOAuth } from '../../core/provider';
import type { Logger } from '../../logger';
import { describeAadError, exchangeFailureOf } from './aadsts';
import { microsoftAccountId } from './account-id';
import { type CallbackError, interpretCallback } from './callback';
import { ALL_MICROSOFT_SCOPES } from './catalog';
import { type IdTokenVerifier, createIdTokenVerifier } from './id-token';
import { identityEndpoints } from './identity-endpoints';
import { readSignedInUser } from './profile';
import { createMicrosoftRefresh } from './refresh';
import { GRAPH_RESOURCE, OIDC_SCOPES, grantedGraphScopes, shortGraphScope } from './scopes';
import { postTokenRequest, tokenAnswerSchema } from './token-endpoint';

/**
 * The Hub's side of the Microsoft identity platform's authorization-code flow (v2.0; learn.microsoft.com/entra/
 * identity-platform/v2-oauth2-auth-code-flow): the sign-in URL, the code exchange with PKCE, the identity behind
 * the new tokens, refresh, and what Microsoft's refusals mean. Everything Microsoft answers is validated before
 * the Hub believes it; failures come back as values; no token, code or secret is ever logged.
 *
 * Why not @azure/msal-node, Microsoft's own library (the sandbox's tests drive it): by design MSAL never hands a
 * refresh token to the application — it keeps it in its token cache (AzureAD/microsoft-authentication-library-for-js:
 * a pull request adding it to AuthenticationResult was declined, "a conscious design choice made by all MSALs") —
 * while the Hub keeps one refresh token per connection, encrypted in its own store, and must store each rotated one
 * atomically with its access token under its refresh lock. Working around that means serializing MSAL's cache per
 * connection and digging the secret out of it, i.e. depending on the cache's internal format. MSAL also refuses an
 * authority that is not https (msal-common's `authority_uri_insecure`), so the sandbox could be reached only through
 * a transport that rewrites every URL, and its acquireToken* calls take no AbortSignal, which the Hub's deadlines need.
 * What remains is small and documented: a URL, two form POSTs, an RS256 id_token check. The component tests show
 * that the Hub's authorize URL and msal-node's agree, and that a refresh token the Hub stored works with msal-node.
 */

export type { CallbackError, CallbackNext } from './callback';

/** A tenant to send an administrator to: a GUID or a verified domain, never `common`/`consumers` (v2-admin-consent). */
const TENANT = /^(?!common$|consumers$)[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/i;

export interface MicrosoftOAuth extends ProviderOAuth {
  /**
   * The v2.0 admin-consent URL (v2-admin-consent): the administrator signs in and approves `scopes` (Graph
   * permissions; default every Microsoft integration's, so one approval covers both) for the whole tenant; Microsoft
   * then returns to the Hub's redirect URI with `admin_consent=True` (or an error) and `state`. `tenant` (a GUID or
   * a domain, e.g. the tenant of a connection being reconnected — tenantOfAccountId) leads straight to that
   * organisation's page; without it, or when it is not one, the configured tenant's (`organizations` for `common`).
   */
  adminConsentUrl(p?: { state?: string; scopes?: readonly string[]; tenant?: string }): string;
  /**
   * What a redirect to the callback without a code means (the query as it came) and what the Hub does next, or null
   * when it carries a code to redeem. `p` shapes the admin-consent URL returned with `admin_consent_required`.
   */
  callbackError(query: Record<string, unknown>, p?: { state?: string; scopes?: readonly string[]; tenant?: string }): CallbackError | null;
}

export function createMicrosoftOAuth(config: MicrosoftConfig, deps: { logger: Logger; idTokens?: IdTokenVerifier }): MicrosoftOAuth {
  const { logger } = deps;
  const endpoints = identityEndpoints(config);
  const configured = Boolean(config.clientId && config.clientSecret);
  const idTokens =
    deps.idTokens ??
    createIdTokenVerifier({
      openidConfigurationUrl: endpoints.openidConfiguration,
      authorityUrl: config.authorityUrl,
      clientId: config.clientId ?? '',
      timeoutMs: config.timeoutMs,
    });
  const refresh = createMicrosoftRefresh(config, endpoints.token);

  const adminConsentUrl: MicrosoftOAuth['adminConsentUrl'] = ({ state, scopes = ALL_MICROSOFT_SCOPES, tenant } = {}) => {
    const url = new URL(
      tenant !== undefined && TENANT.test(tenant)
        ? `${config.authorityUrl}/${encodeURIComponent(tenant.toLowerCase())}/v2.0/adminconsent`
        : endpoints.adminConsent,
    );
    url.searchParams.set('client_id', config.clientId ?? '');
    // Full resource URIs, as the endpoint's own example spells them; the OpenID scopes may be included.
    url.searchParams.set('scope', [...scopes.map((s) => `${GRAPH_RESOURCE}${shortGraphScope(s)}`), ...OIDC_SCOPES].join(' '));
    url.searchParams.set('redirect_uri', config.redirectUri);
    if (state !== undefined) url.searchParams.set('state', state);
    return url.toString();
  };

  const failed = (failure: Exclude<ExchangeOutcome, { ok: true }>['failure'], logged: Record<string, unknown>, message: string): ExchangeOutcome => {
    (failure === 'misconfigured' || failure === 'unverifiable' ? logger.error : logger.warn).call(logger, { failure, ...logged }, message);
    return failure === 'admin_consent_required' ? { ok: false, failure, adminConsentUrl: adminConsentUrl() } : { ok: false, failure };
  };

  return {
    configured,

    authorizeUrl({ scopes, state, codeChallenge, freshConsent, loginHint }) {
      const url = new URL(endpoints.authorize);
      const q = url.searchParams;
      q.set('client_id', config.clientId ?? '');
      q.set('response_type', 'code');
      q.set('redirect_uri', config.redirectUri);
      q.set('response_mode', 'query');
      q.set('scope', [...new Set([...scopes, ...OIDC_SCOPES])].join(' '));
      q.set('state', state);
      q.set('code_challenge', codeChallenge);
      q.set('code_challenge_method', 'S256');
      // consent: the consent screen even for an account that consented before; select_account: never sign in
      // silently with whichever account the browser holds a session for — the person picks (v2-oauth2-auth-code-flow).
      q.set('prompt', freshConsent ? 'consent' : 'select_account');
      if (loginHint) q.set('login_hint', loginHint);
      return url.toString();
    },

    async exchange(code, codeVerifier) {
      if (!configured) return failed('misconfigured', {}, 'Microsoft is not configured: no client id and secret');
      const startedAt = Date.now();
      // No `scope`: optional on redemption, and the token is then for the scopes the person consented to.
      const form = new URLSearchParams({
        client_id: config.clientId!,
        client_secret: config.clientSecret!,
        grant_type: 'authorization_code',
        code,
        redirect_uri: config.redirectUri,
        code_verifier: codeVerifier,
      });
      const res = await postTokenRequest(endpoints.token, form, { timeoutMs: config.timeoutMs });
      switch (res.kind) {
        case 'timeout':
        case 'network':
          return failed('unavailable', { reason: res.kind }, 'Microsoft did not answer the code exchange');
        case 'status': {
          const transient = res.status >= 500 || res.status === 429 || res.status === 408;
          return failed(transient ? 'unavailable' : 'misconfigured', { status: res.status }, 'Microsoft failed the code exchange');
        }
        case 'malformed':
          return failed('unverifiable', { reason: res.reason }, "Microsoft's token answer could not be read");
        case 'refused':
          return failed(
            exchangeFailureOf(res.error, res.status),
            { status: res.status, microsoft: describeAadError(res.error) },
            'Microsoft refused the code exchange',
          );
        case 'answer':
          break;
      }
      const parsed = tokenAnswerSchema.safeParse(res.body);
      if (!parsed.success) {
        const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '(answer)')))].slice(0, 10);
        return failed('unverifiable', { fields }, "Microsoft's token answer did not have the expected shape");
      }
      const t = parsed.data;
      if (!t.id_token) return failed('unverifiable', { reason: 'no id_token' }, "Microsoft's token answer named no account");
      const identity = await idTokens.verify(t.id_token);
      if (!identity.ok) return failed(identity.failure, { reason: identity.reason }, 'the id_token from Microsoft did not verify');
      const me = await readSignedInUser(config.graphUrl, t.access_token, config.timeoutMs);
      if (!me.ok) return failed(me.failure, { reason: me.reason }, 'Graph did not confirm who connected');
      if (me.user.id !== identity.claims.oid)
        return failed('unverifiable', { reason: 'GET /me is another user than the id_token' }, 'Graph did not confirm who connected');
      return {
        ok: true,
        tokens: {
          accessToken: t.access_token,
          refreshToken: t.refresh_token ?? null,
          expiresAt: new Date(startedAt + t.expires_in * 1000),
          scopes: grantedGraphScopes(t.scope ?? ''),
          email: me.user.email,
          // Microsoft announces no refresh-token lifetime; its 90-day inactivity rule is grant-lifetime.ts's.
          refreshTokenExpiresAt: null,
          accountId: microsoftAccountId(identity.claims),
        },
      };
    },

    refresh,

    /**
     * Microsoft has no way to revoke one grant: the identity platform publishes no revocation endpoint (its OpenID
     * configuration lists none; there is no RFC 7009 endpoint), and Graph's `user: revokeSignInSessions`
     * "invalidates all the refresh tokens issued to applications for a user (and session cookies in a user's
     * browser)" (learn.microsoft.com/graph/api/user-revokesigninsessions) — every app the person uses, far beyond
     * the Hub's connection. Deleting a tenant's oauth2PermissionGrant needs an administrator's
     * DelegatedPermissionGrant.ReadWrite.All. So disconnecting forgets the tokens; the person (My Apps) or an
     * administrator removes the consent.
     */
    async revoke() {
      return 'unsupported';
    },

    adminConsentUrl,

    callbackError: (query, p = {}) => interpretCallback(query, () => adminConsentUrl(p)),
  };
}
