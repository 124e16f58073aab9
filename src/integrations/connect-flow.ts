import { timingSafeEqual } from 'node:crypto';
import type { Logger } from '../logger';
import type { CredentialRecord, CredentialStore } from '../store/credential-store';
import { isDatabaseUnavailable } from '../store/db';
import type { ToolRegistry } from '../tools/registry';
import type { ConnectCompletions } from './connect-completions';
import type { ConnectLinks } from './connect-links';
import { OPEN_AGAIN, type Page, type PageOutcome, TRY_LATER, callbackPages, callbackStepPage, linkPages, page } from './connect-pages';
import type { ProviderId } from '../core/capabilities';
import type { ConnectGrant } from '../core/provider';
import type { ConnectingRegistry } from '../providers/connecting';
import type { CapabilityDefaults } from '../store/capability-defaults';
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
 * The browser half of connecting an account of any provider (its ProviderOAuth through the connecting registry,
 * src/providers/connecting.ts), as two use cases:
 *
 *   start:    signed connect link (unused, not opened too often) → one-time state (+ PKCE verifier, + browser
 *             nonce) → the vendor's consent page
 *   complete: state consumed once, same browser, link still unused → a redirect without a code read by the
 *             provider (declined, an administrator's approval needed, blocked…: a page with the next step) → code
 *             exchanged with the verifier → identity verified → the link's single use and the connection reserved
 *             → the same account as the one connected (by the vendor's account id when both have one, else by
 *             address; or none, or an admin's `replace` link) → a new refresh token, or the stored one proven to
 *             carry on (grant-reuse.ts) → tokens sealed and stored, the capability's default claimed → a page,
 *             or the link's return_url
 *
 * Every way it can end is a value the route renders; nothing here writes HTTP, and no page or redirect ever
 * carries a token, a code or an internal error.
 */

/** `browser.provider`: whose callback the browser comes back to (the cookie's path). */
export type ConnectOutcome = { kind: 'redirect'; url: string; browser?: { state: string; nonce: string; provider: ProviderId } } | PageOutcome;

/** The callback's query as it came (state, code, error, and whatever else the vendor sends back). */
export type CallbackQuery = Record<string, unknown>;

export interface ConnectFlow {
  /** `clientAddress`: the browser's address (as `trust proxy` resolves it), for the per-address attempt limit. */
  start(linkToken: unknown, clientAddress: string): Promise<ConnectOutcome>;
  /** `provider`: whose callback this is (the route's); default Google, the first one. */
  complete(query: CallbackQuery, browserNonce: string | undefined, provider?: ProviderId): Promise<ConnectOutcome>;
}

/** What storing a new grant does to the connection: nothing there yet, the same account again, or another one. */
type AccountChange = 'new' | 'same' | 'replaced' | 'refused';

/** Emails are compared case-insensitively (Google treats them so); an unknown email never counts as the same. */
const sameAddress = (a: string | null, b: string | null) => a !== null && b !== null && a.toLowerCase() === b.toLowerCase();

/**
 * The same person: by the vendor's stable account id when both the row and the grant have one (Microsoft's
 * `{tid}/{oid}`: a renamed address is still the same person, another person with a recycled address is not),
 * else by address.
 */
const sameAccount = (existing: CredentialRecord, tokens: ConnectGrant) =>
  existing.accountId && tokens.accountId ? existing.accountId === tokens.accountId : sameAddress(existing.accountEmail, tokens.email);

function accountChange(existing: CredentialRecord | null, tokens: ConnectGrant, replace: boolean): AccountChange {
  if (existing === null) return 'new';
  if (sameAccount(existing, tokens)) return 'same';
  return replace ? 'replaced' : 'refused';
}

const single = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : undefined);

export function createConnectFlow(deps: {
  links: ConnectLinks;
  states: OAuthStates;
  completions: ConnectCompletions;
  /** Each provider's OAuth, and its reading of a redirect back without a code. */
  connecting: ConnectingRegistry;
  /** The first provider connected for a capability becomes its default (capability-defaults.ts `claim`). */
  defaults?: Pick<CapabilityDefaults, 'claim'>;
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
  const { links, states, completions, store, logger } = deps;
  const providerOf = (integration: IntegrationId) => deps.connecting.of(INTEGRATIONS[integration].provider);
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
   * Stores the grant unless it would silently re-point the connection to another account (of any vendor). The link's
   * use and the connection are reserved first, so a second attempt can neither reuse the link nor slip
   * another account in between the comparison and the write.
   */
  async function storeGrant(
    pending: PendingConnect,
    tokens: ConnectGrant,
  ): Promise<{ ok: true; change: AccountChange; previous: string | null; event: ConnectionEvent } | { ok: false; outcome: ConnectOutcome }> {
    const name = INTEGRATIONS[pending.integration].displayName;
    const vendor = providerOf(pending.integration).vendorName;
    const reserved = await completions.reserve(pending);
    if (reserved === 'link_used') return { ok: false, outcome: usedMeanwhile(pending) };
    if (reserved === 'busy') return { ok: false, outcome: callbackPages.busy() };
    try {
      const existing = await store.findExact(pending.customerId, pending.userId, pending.integration);
      const change = accountChange(existing, tokens, pending.replace);
      const previous = existing?.accountEmail ?? null;
      if (change === 'refused') {
        await completions.abandon(pending);
        logger.warn(
          { ...who(pending), connected_account: previous, attempted_account: tokens.email },
          `connect refused: the link would re-point the connection to a different ${vendor} account`,
        );
        return {
          ok: false,
          outcome: finish(pending.returnUrl, pending.integration, 'account_mismatch', callbackPages.accountMismatch(name, previous, tokens.email, vendor)),
        };
      }
      // No refresh token: a returning account (no fresh consent asked) keeps the stored grant, if it still works.
      if (tokens.refreshToken === null && !(await deps.reuse.mayKeep(pending, tokens.email))) {
        await completions.abandon(pending);
        logger.warn({ integration: pending.integration }, 'the vendor granted no refresh token and the stored grant cannot carry on');
        return {
          ok: false,
          outcome: page(
            502,
            'error',
            `${vendor} did not grant lasting access`,
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
        ...(tokens.accountId ? { accountId: tokens.accountId } : {}),
        scopes: tokens.scopes,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken ?? undefined, // undefined: the stored one (and its dates) is kept
        refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
        tokenExpiresAt: tokens.expiresAt,
        lastRefreshedAt: new Date(),
      };
      await store.save(input, recordWith(deps.onConnectionEvent, event)); // the webhook goes in with the grant, or neither
      await claimDefault(pending);
      await completions
        .done(pending)
        .catch((err: unknown) => logger.warn({ err, link_id: pending.linkId }, 'connect flow: could not end the reservation (it lapses by itself)'));
      return { ok: true, change, previous, event };
    } catch (err) {
      await completions.abandon(pending).catch(() => {}); // the database is likely down too; the lease lapses
      return { ok: false, outcome: unavailable(err) };
    }
  }

  /** The first provider connected for a capability answers it by default; a failure here never undoes the connect. */
  async function claimDefault(pending: PendingConnect): Promise<void> {
    if (!deps.defaults) return;
    const spec = INTEGRATIONS[pending.integration];
    try {
      await deps.defaults.claim(pending.customerId, spec.capability, spec.provider);
    } catch (err) {
      logger.warn({ err, ...who(pending) }, 'connect flow: could not record the capability default; the provider choice rule still applies');
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
      const link = verified.link;
      const provider = providerOf(link.integration);
      if (!provider.oauth.configured) {
        const [id, secret] = provider.credentialVariables;
        return page(503, 'error', `${provider.vendorName} is not configured on this Hub`, `An administrator must set ${id} and ${secret}.`);
      }
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
      const url = provider.oauth.authorizeUrl({
        scopes: INTEGRATIONS[link.integration].scopes,
        state: begun.begun.state,
        codeChallenge: begun.begun.codeChallenge,
        ...plan,
      });
      return { kind: 'redirect', url, browser: { state: begun.begun.state, nonce: begun.begun.browserNonce, provider: provider.provider } };
    },

    async complete(query, browserNonce, routeProvider = 'google') {
      const at = deps.connecting.of(routeProvider);
      const state = single(query.state);
      if (!state) {
        // An administrator's approval comes back without the person's attempt (the approval link carries none).
        const step = at.callbackStep(query, null);
        if (step?.next === 'restart_connect') {
          logger.info({ provider: routeProvider, vendor_said: step.logged }, 'an administrator approved the Hub for their organisation');
          return callbackStepPage(step, 'Your account', at.vendorName);
        }
        return page(400, 'error', 'This sign-in cannot be completed', `The answer from ${at.vendorName} did not say which attempt it belongs to.`, OPEN_AGAIN);
      }
      let consumed;
      try {
        consumed = await states.consume(state);
      } catch (err) {
        return unavailable(err);
      }
      if (!consumed.ok) return callbackPages.stateRefused(consumed.problem);
      const pending = consumed.pending;
      const name = INTEGRATIONS[pending.integration].displayName;
      const provider = providerOf(pending.integration);
      if (provider.provider !== routeProvider) {
        return page(
          400,
          'error',
          'This sign-in came back to the wrong address',
          `It was started for ${provider.vendorName}. Nothing was connected.`,
          OPEN_AGAIN,
        );
      }
      const sameBrowser = browserNonce !== undefined && timingSafeEqual(digest(browserNonce), pending.browserHash);
      if (!sameBrowser) {
        return page(400, 'error', 'This sign-in was started in another browser', 'Finish it in the browser where you opened the connect link.', OPEN_AGAIN);
      }
      if (pending.linkUsed) return usedMeanwhile(pending); // before the vendor is asked for anything

      let step = provider.callbackStep(query, null);
      if (step !== null) {
        if (step.next === 'admin_consent') {
          // Reconnecting a connection the Hub holds: send the administrator to that organisation's own approval page.
          const existing = await store.findExact(pending.customerId, pending.userId, pending.integration).catch(() => null);
          if (existing?.accountId) step = provider.callbackStep(query, existing.accountId) ?? step;
        }
        logger.warn({ ...who(pending), next: step.next, vendor_said: step.logged }, 'the vendor ended the sign-in without a code');
        const result = step.declined ? 'denied' : step.next === 'admin_consent' ? 'admin_consent_required' : 'error';
        return finish(pending.returnUrl, pending.integration, result, callbackStepPage(step, name, provider.vendorName));
      }
      const code = single(query.code);
      if (!code)
        return page(400, 'error', 'This sign-in cannot be completed', `The answer from ${provider.vendorName} carried no authorization code.`, OPEN_AGAIN);

      const exchanged = await provider.oauth.exchange(code, pending.codeVerifier);
      if (!exchanged.ok) {
        const failed = callbackPages.exchangeFailed(exchanged.failure, provider.vendorName, exchanged.adminConsentUrl);
        return exchanged.failure === 'admin_consent_required' ? finish(pending.returnUrl, pending.integration, 'admin_consent_required', failed) : failed;
      }
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

      const account = tokens.email ?? `your ${provider.vendorName} account`;
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
