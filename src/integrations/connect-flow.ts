import { timingSafeEqual } from 'node:crypto';
import type { Logger } from '../logger';
import type { CredentialRecord, CredentialStore } from '../store/credential-store';
import { isDatabaseUnavailable } from '../store/db';
import type { ToolRegistry } from '../tools/registry';
import type { ConnectCompletions } from './connect-completions';
import type { ConnectLinks } from './connect-links';
import { OPEN_AGAIN, type Page, type PageOutcome, TRY_LATER, callbackPages, linkPages, page } from './connect-pages';
import type { GoogleOAuth, GrantedTokens } from '../providers/google/oauth';
import type { ConsentPlan, GrantReuse } from './grant-reuse';
import { INTEGRATIONS, shortScope } from './catalog';
import { type IntegrationId } from '../core/integrations';
import { type OAuthStates, type PendingConnect, digest } from './oauth-states';
import { isAllowedReturnUrl } from './return-urls';
import { missingScopes } from './scopes';
import type { SetupTarget } from './setup-url';
import { type ConnectionEvent, type OnConnectionEvent, recordWith } from '../audit/connection-events';

export type { Page } from './connect-pages';

/**
 * The browser half of connecting a Google account, as two use cases:
 *
 *   start:    signed connect link (unused, not opened too often) → one-time state (+ PKCE verifier, + browser
 *             nonce) → Google's consent page
 *   complete: state consumed once, same browser, link still unused → code exchanged with the verifier →
 *             identity verified → the link's single use and the connection reserved → the same Google account
 *             as the one connected (or none, or an admin's `replace` link) → a new refresh token, or the
 *             stored one proven to carry on (grant-reuse.ts) → tokens sealed and stored → a page, or the
 *             link's return_url
 *
 * Every way it can end is a value the route renders; nothing here writes HTTP, and no page or redirect ever
 * carries a token, a code or an internal error.
 */

export type ConnectOutcome = { kind: 'redirect'; url: string; browser?: { state: string; nonce: string } } | PageOutcome;

export interface CallbackQuery {
  state?: unknown;
  code?: unknown;
  error?: unknown;
}

export interface ConnectFlow {
  /** `clientAddress`: the browser's address (as `trust proxy` resolves it), for the per-address attempt limit. */
  start(linkToken: unknown, clientAddress: string): Promise<ConnectOutcome>;
  complete(query: CallbackQuery, browserNonce: string | undefined): Promise<ConnectOutcome>;
}

/** What storing a new grant does to the connection: nothing there yet, the same account again, or another one. */
type AccountChange = 'new' | 'same' | 'replaced' | 'refused';

/** Emails are compared case-insensitively (Google treats them so); an unknown email never counts as the same. */
const sameAccount = (a: string | null, b: string | null) => a !== null && b !== null && a.toLowerCase() === b.toLowerCase();

function accountChange(existing: CredentialRecord | null, email: string | null, replace: boolean): AccountChange {
  if (existing === null) return 'new';
  if (sameAccount(existing.accountEmail, email)) return 'same';
  return replace ? 'replaced' : 'refused';
}

const single = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : undefined);

export function createConnectFlow(deps: {
  links: ConnectLinks;
  states: OAuthStates;
  completions: ConnectCompletions;
  oauth: GoogleOAuth;
  /** Whether a reconnect needs a fresh consent, and whether the stored grant may carry on without one. */
  reuse: GrantReuse;
  store: CredentialStore;
  tools: ToolRegistry;
  returnUrlPrefixes: readonly string[];
  /** Drops cached lookups of a connection that was just replaced. */
  onCredentialChanged: (target: SetupTarget) => void;
  /** Audit trail and webhooks (connected, reconnected, lacking scopes); must not block. */
  onConnectionEvent?: OnConnectionEvent;
  logger: Logger;
}): ConnectFlow {
  const { links, states, completions, oauth, store, logger } = deps;
  const unavailable = (err: unknown) => {
    if (!isDatabaseUnavailable(err)) throw err;
    logger.warn({ err }, 'connect flow: database unavailable');
    return page(503, 'error', 'The Hub is temporarily unavailable', TRY_LATER);
  };

  const who = (p: PendingConnect) => ({ customer_id: p.customerId, user_id: p.userId, integration: p.integration, link_id: p.linkId });

  /** Back to the app that sent the person, when it is (still) on the allow-list; else the Hub's own page. */
  const finish = (returnUrl: string | null, integration: IntegrationId, result: string, fallback: ConnectOutcome): ConnectOutcome => {
    if (returnUrl === null || !isAllowedReturnUrl(returnUrl, deps.returnUrlPrefixes)) return fallback;
    const url = new URL(returnUrl);
    url.searchParams.set('hub_connect', result);
    url.searchParams.set('integration', integration);
    return { kind: 'redirect', url: url.toString() };
  };
  /** Another attempt of the same link connected first: this one changes nothing. */
  const usedMeanwhile = (p: PendingConnect) => finish(p.returnUrl, p.integration, 'link_used', callbackPages.linkUsedMeanwhile());

  /**
   * Stores the grant unless it would silently re-point the connection to another Google account. The link's
   * use and the connection are reserved first, so a second attempt can neither reuse the link nor slip
   * another account in between the comparison and the write.
   */
  async function storeGrant(
    pending: PendingConnect,
    tokens: GrantedTokens,
  ): Promise<{ ok: true; change: AccountChange; previous: string | null; event: ConnectionEvent } | { ok: false; outcome: ConnectOutcome }> {
    const name = INTEGRATIONS[pending.integration].displayName;
    const reserved = await completions.reserve(pending);
    if (reserved === 'link_used') return { ok: false, outcome: usedMeanwhile(pending) };
    if (reserved === 'busy') return { ok: false, outcome: callbackPages.busy() };
    try {
      const existing = await store.findExact(pending.customerId, pending.userId, pending.integration);
      const change = accountChange(existing, tokens.email, pending.replace);
      const previous = existing?.accountEmail ?? null;
      if (change === 'refused') {
        await completions.abandon(pending);
        logger.warn(
          { ...who(pending), connected_account: previous, attempted_account: tokens.email },
          'connect refused: the link would re-point the connection to a different Google account',
        );
        return {
          ok: false,
          outcome: finish(pending.returnUrl, pending.integration, 'account_mismatch', callbackPages.accountMismatch(name, previous, tokens.email)),
        };
      }
      // No refresh token: a returning account (no fresh consent asked) keeps the stored grant, if it still works.
      if (tokens.refreshToken === null && !(await deps.reuse.mayKeep(pending, tokens.email))) {
        await completions.abandon(pending);
        logger.warn({ integration: pending.integration }, 'Google granted no refresh token and the stored grant cannot carry on');
        return {
          ok: false,
          outcome: page(
            502,
            'error',
            'Google did not grant lasting access',
            'Without it the Hub could act for an hour at most, so nothing was stored.',
            OPEN_AGAIN,
          ),
        };
      }
      const event: ConnectionEvent = {
        kind: change === 'same' ? 'reconnected' : 'connected',
        customerId: pending.customerId,
        userId: pending.userId,
        integration: pending.integration,
        accountEmail: tokens.email,
        actor: null, // the end user, through a connect link
        missingScopes: missingScopes(tokens.scopes, INTEGRATIONS[pending.integration].scopes).map(shortScope),
        details: { link_id: pending.linkId, ...(change === 'replaced' ? { previous_account: previous } : {}) },
      };
      const input = {
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
      };
      await store.save(input, recordWith(deps.onConnectionEvent, event)); // the webhook goes in with the grant, or neither
      await completions
        .done(pending)
        .catch((err: unknown) => logger.warn({ err, link_id: pending.linkId }, 'connect flow: could not end the reservation (it lapses by itself)'));
      return { ok: true, change, previous, event };
    } catch (err) {
      await completions.abandon(pending).catch(() => {}); // the database is likely down too; the lease lapses
      return { ok: false, outcome: unavailable(err) };
    }
  }

  return {
    async start(linkToken, clientAddress) {
      const token = single(linkToken);
      const verified = token ? links.verify(token) : ({ ok: false, problem: 'invalid' } as const);
      if (!verified.ok) {
        if (verified.problem === 'expired') return linkPages.expired();
        return verified.problem === 'unknown_key' ? linkPages.unknownKey() : linkPages.invalid();
      }
      if (!oauth.configured) {
        return page(503, 'error', 'Google is not configured on this Hub', 'An administrator must set HUB_GOOGLE_CLIENT_ID and HUB_GOOGLE_CLIENT_SECRET.');
      }
      const link = verified.link;
      let begun;
      try {
        begun = await states.begin(link, clientAddress);
      } catch (err) {
        return unavailable(err);
      }
      if (!begun.ok) {
        if (begun.problem === 'link_used') return linkPages.used();
        logger.warn({ link_id: link.linkId, customer_id: link.customerId, reason: begun.problem }, 'connect link: too many sign-in attempts');
        return begun.problem === 'too_many_for_link' ? linkPages.tooManyForLink() : linkPages.tooManyForAddress();
      }
      let plan: ConsentPlan;
      try {
        // A replace link is meant for another account: always a fresh consent (and so a refresh token for it).
        plan = link.replace ? { freshConsent: true } : await deps.reuse.plan(link);
      } catch (err) {
        return unavailable(err);
      }
      const url = oauth.consentUrl({
        scopes: INTEGRATIONS[link.integration].scopes,
        state: begun.begun.state,
        codeChallenge: begun.begun.codeChallenge,
        ...plan,
      });
      return { kind: 'redirect', url, browser: { state: begun.begun.state, nonce: begun.begun.browserNonce } };
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
      if (!consumed.ok) return callbackPages.stateRefused(consumed.problem);
      const pending = consumed.pending;
      const name = INTEGRATIONS[pending.integration].displayName;
      const sameBrowser = browserNonce !== undefined && timingSafeEqual(digest(browserNonce), pending.browserHash);
      if (!sameBrowser) {
        return page(400, 'error', 'This sign-in was started in another browser', 'Finish it in the browser where you opened the connect link.', OPEN_AGAIN);
      }
      if (pending.linkUsed) return usedMeanwhile(pending); // before Google is asked for anything

      const error = single(query.error);
      if (error !== undefined) {
        const denied = error === 'access_denied';
        return finish(
          pending.returnUrl,
          pending.integration,
          denied ? 'denied' : 'error',
          denied
            ? page(
                200,
                'warning',
                `${name} was not connected`,
                'You declined the request at Google. Nothing was stored.',
                `To connect ${name} later, ${OPEN_AGAIN.toLowerCase()}`,
              )
            : page(400, 'error', `${name} was not connected`, 'Google ended the sign-in without granting access.', OPEN_AGAIN),
        );
      }
      const code = single(query.code);
      if (!code) return page(400, 'error', 'This sign-in cannot be completed', 'The answer from Google carried no authorization code.', OPEN_AGAIN);

      const exchanged = await oauth.exchange(code, pending.codeVerifier);
      if (!exchanged.ok) return callbackPages.exchangeFailed(exchanged.failure);
      const tokens = exchanged.tokens;
      const stored = await storeGrant(pending, tokens);
      if (!stored.ok) return stored.outcome;
      deps.onCredentialChanged({ customerId: pending.customerId, userId: pending.userId, integration: pending.integration });
      if (stored.change === 'replaced') {
        // An account change is its own event in the log, with both accounts: it is what an audit looks for.
        logger.warn({ ...who(pending), previous_account: stored.previous, account: tokens.email }, 'integration account replaced');
      } else {
        logger.info(who(pending), stored.change === 'same' ? 'integration reconnected' : 'integration connected');
      }

      const account = tokens.email ?? 'your Google account';
      const instead = stored.change === 'replaced' && stored.previous !== null ? ` instead of ${stored.previous}` : '';
      const missing = stored.event.missingScopes ?? []; // short names (calendar.events), as the event carries them
      deps.onConnectionEvent?.(stored.event);
      if (missing.length === 0) {
        return finish(
          pending.returnUrl,
          pending.integration,
          'connected',
          page(200, 'success', `${name} is connected`, `The Hub can now act for ${account}${instead}.`, 'You can close this window.'),
        );
      }
      const usable = deps.tools
        .forIntegration(pending.integration)
        .filter((t) => missingScopes(tokens.scopes, t.requiredScopes).length === 0)
        .map((t) => t.name)
        .sort();
      const partial: Page = {
        ...page(
          200,
          'warning',
          `${name} is connected with fewer permissions than requested`,
          `Some permissions were not granted for ${account}${instead}: ${missing.join(', ')}.`,
          `To grant them, ask for a new connect link and open it.`,
        ).page,
        list: { heading: 'What still works', items: usable.length ? usable : ['(no tools)'] },
      };
      return finish(pending.returnUrl, pending.integration, 'insufficient_scopes', { kind: 'page', page: partial });
    },
  };
}
