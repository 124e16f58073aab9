import { timingSafeEqual } from 'node:crypto';
import type { Logger } from '../logger';
import type { CredentialStore } from '../store/credential-store';
import { isDatabaseUnavailable } from '../store/db';
import type { ToolRegistry } from '../tools/registry';
import type { ConnectLinks } from './connect-links';
import type { GoogleOAuth } from './google-oauth';
import type { GrantReuse } from './grant-reuse';
import { INTEGRATIONS, type IntegrationId, shortScope } from './integrations';
import { type OAuthStates, digest } from './oauth-states';
import { isAllowedReturnUrl } from './return-urls';
import { missingScopes } from './scopes';
import type { SetupTarget } from './setup-url';

/**
 * The browser half of connecting a Google account, as two use cases:
 *
 *   start:    signed connect link → one-time state (+ PKCE verifier, + browser nonce) → Google's consent page
 *   complete: state consumed once, same browser → code exchanged with the verifier → identity verified →
 *             tokens sealed and stored (replacing any previous connection) → a page, or the link's return_url
 *
 * Every way it can end is a value the route renders; nothing here writes HTTP, and no page or redirect ever
 * carries a token, a code or an internal error.
 */

export interface Page {
  status: number;
  tone: 'success' | 'warning' | 'error';
  title: string;
  lines: string[];
  list?: { heading: string; items: string[] };
}

export type ConnectOutcome =
  | { kind: 'redirect'; url: string; browser?: { state: string; nonce: string } }
  | { kind: 'page'; page: Page };

export interface CallbackQuery {
  state?: unknown;
  code?: unknown;
  error?: unknown;
}

export interface ConnectFlow {
  start(linkToken: unknown): Promise<ConnectOutcome>;
  complete(query: CallbackQuery, browserNonce: string | undefined): Promise<ConnectOutcome>;
}

const page = (status: number, tone: Page['tone'], title: string, ...lines: string[]): ConnectOutcome => ({
  kind: 'page',
  page: { status, tone, title, lines },
});
const ASK_AGAIN = 'Ask whoever sent you the link for a new one.';
const OPEN_AGAIN = 'Open the connect link again to start over.';
const TRY_LATER = 'Nothing was connected. Please try again in a few minutes.';
const single = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : undefined);

export function createConnectFlow(deps: {
  links: ConnectLinks;
  states: OAuthStates;
  oauth: GoogleOAuth;
  /** Whether a reconnect needs a fresh consent, and whether the stored grant may carry on without one. */
  reuse: GrantReuse;
  store: CredentialStore;
  tools: ToolRegistry;
  returnUrlPrefixes: readonly string[];
  /** Drops cached lookups of a connection that was just replaced. */
  onCredentialChanged: (target: SetupTarget) => void;
  logger: Logger;
}): ConnectFlow {
  const { links, states, oauth, store, logger } = deps;
  const unavailable = (err: unknown) => {
    if (!isDatabaseUnavailable(err)) throw err;
    logger.warn({ err }, 'connect flow: database unavailable');
    return page(503, 'error', 'The Hub is temporarily unavailable', TRY_LATER);
  };

  /** Back to the app that sent the person, when it is (still) on the allow-list; else the Hub's own page. */
  const finish = (returnUrl: string | null, integration: IntegrationId, result: string, fallback: ConnectOutcome): ConnectOutcome => {
    if (returnUrl === null || !isAllowedReturnUrl(returnUrl, deps.returnUrlPrefixes)) return fallback;
    const url = new URL(returnUrl);
    url.searchParams.set('hub_connect', result);
    url.searchParams.set('integration', integration);
    return { kind: 'redirect', url: url.toString() };
  };

  return {
    async start(linkToken) {
      const token = single(linkToken);
      const verified = token ? links.verify(token) : ({ ok: false, problem: 'invalid' } as const);
      if (!verified.ok) {
        return verified.problem === 'expired'
          ? page(410, 'error', 'This connect link has expired', ASK_AGAIN)
          : page(400, 'error', 'This connect link is not valid', 'It may have been copied incompletely.', ASK_AGAIN);
      }
      if (!oauth.configured) {
        return page(503, 'error', 'Google is not configured on this Hub', 'An administrator must set HUB_GOOGLE_CLIENT_ID and HUB_GOOGLE_CLIENT_SECRET.');
      }
      const link = verified.link;
      try {
        const plan = await deps.reuse.plan(link);
        const begun = await states.begin(link);
        const url = oauth.consentUrl({ scopes: INTEGRATIONS[link.integration].scopes, state: begun.state, codeChallenge: begun.codeChallenge, ...plan });
        return { kind: 'redirect', url, browser: { state: begun.state, nonce: begun.browserNonce } };
      } catch (err) {
        return unavailable(err);
      }
    },

    async complete(query, browserNonce) {
      const state = single(query.state);
      if (!state) return page(400, 'error', 'This sign-in cannot be completed', 'The answer from Google did not say which attempt it belongs to.', OPEN_AGAIN);
      let consumed;
      try {
        consumed = await states.consume(state);
      } catch (err) {
        return unavailable(err);
      }
      if (!consumed.ok) {
        return consumed.problem === 'expired'
          ? page(400, 'error', 'This sign-in took too long', 'Sign-in attempts are valid for 10 minutes.', OPEN_AGAIN)
          : page(400, 'error', 'This sign-in is unknown or was already completed', OPEN_AGAIN);
      }
      const pending = consumed.pending;
      const name = INTEGRATIONS[pending.integration].displayName;
      const sameBrowser = browserNonce !== undefined && timingSafeEqual(digest(browserNonce), pending.browserHash);
      if (!sameBrowser) {
        return page(400, 'error', 'This sign-in was started in another browser', 'Finish it in the browser where you opened the connect link.', OPEN_AGAIN);
      }

      const error = single(query.error);
      if (error !== undefined) {
        const denied = error === 'access_denied';
        return finish(
          pending.returnUrl,
          pending.integration,
          denied ? 'denied' : 'error',
          denied
            ? page(200, 'warning', `${name} was not connected`, 'You declined the request at Google. Nothing was stored.', `To connect ${name} later, ${OPEN_AGAIN.toLowerCase()}`)
            : page(400, 'error', `${name} was not connected`, 'Google ended the sign-in without granting access.', OPEN_AGAIN),
        );
      }
      const code = single(query.code);
      if (!code) return page(400, 'error', 'This sign-in cannot be completed', 'The answer from Google carried no authorization code.', OPEN_AGAIN);

      const exchanged = await oauth.exchange(code, pending.codeVerifier);
      if (!exchanged.ok) {
        switch (exchanged.failure) {
          case 'rejected':
            return page(400, 'error', 'Google did not accept this sign-in', 'The sign-in had expired or was already used.', OPEN_AGAIN);
          case 'unavailable':
            return page(502, 'error', 'Google could not be reached', TRY_LATER);
          case 'unverifiable':
            return page(502, 'error', "Google's answer could not be verified", 'Nothing was connected. The problem has been logged.');
          case 'misconfigured':
            return page(500, 'error', 'The Hub is not set up correctly for Google', 'Nothing was connected. The problem has been logged for an administrator.');
          default: {
            const unreachable: never = exchanged.failure;
            throw new Error(`unknown exchange failure ${String(unreachable)}`);
          }
        }
      }
      const tokens = exchanged.tokens;
      try {
        // No refresh token: a returning account (no fresh consent asked) keeps the stored grant, if it still works.
        if (tokens.refreshToken === null && !(await deps.reuse.mayKeep(pending, tokens.email))) {
          logger.warn({ integration: pending.integration }, 'Google granted no refresh token and the stored grant cannot carry on');
          return page(502, 'error', 'Google did not grant lasting access', 'Without it the Hub could act for an hour at most, so nothing was stored.', OPEN_AGAIN);
        }
        await store.save({
          customerId: pending.customerId,
          userId: pending.userId,
          integration: pending.integration,
          accountEmail: tokens.email,
          scopes: tokens.scopes,
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken ?? undefined, // undefined: the stored one (and its dates) is kept
          refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
          tokenExpiresAt: tokens.expiresAt,
          lastRefreshedAt: new Date(),
        });
      } catch (err) {
        return unavailable(err);
      }
      deps.onCredentialChanged({ customerId: pending.customerId, userId: pending.userId, integration: pending.integration });
      logger.info({ customer_id: pending.customerId, user_id: pending.userId, integration: pending.integration, link_id: pending.linkId }, 'integration connected');

      const missing = missingScopes(tokens.scopes, INTEGRATIONS[pending.integration].scopes);
      const usable = deps.tools
        .forIntegration(pending.integration)
        .filter((t) => missingScopes(tokens.scopes, t.requiredScopes).length === 0)
        .map((t) => t.name)
        .sort();
      const account = tokens.email ?? 'your Google account';
      if (missing.length === 0) {
        return finish(pending.returnUrl, pending.integration, 'connected', page(200, 'success', `${name} is connected`, `The Hub can now act for ${account}.`, 'You can close this window.'));
      }
      const partial = page(
        200,
        'warning',
        `${name} is connected with fewer permissions than requested`,
        `Some permissions were not granted for ${account}: ${missing.map(shortScope).join(', ')}.`,
        `To grant them, ${OPEN_AGAIN.toLowerCase()}`,
      );
      if (partial.kind === 'page') partial.page.list = { heading: 'What still works', items: usable.length ? usable : ['(no tools)'] };
      return finish(pending.returnUrl, pending.integration, 'insufficient_scopes', partial);
    },
  };
}
