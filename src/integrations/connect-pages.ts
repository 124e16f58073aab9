import type { ExchangeFailure } from '../core/provider';
import type { CallbackStep } from '../providers/connecting';
import type { ConsumeResult } from './oauth-states';

/**
 * What a person sees when a connect attempt cannot go on: every refusal says what happened, whether anything
 * changed, and what to do next. Pages never carry a token, a code or an internal error.
 */

export interface Page {
  status: number;
  tone: 'success' | 'warning' | 'error';
  title: string;
  lines: string[];
  list?: { heading: string; items: string[] };
  /** Seconds after which trying again can work (sent as Retry-After). */
  retryAfterS?: number;
}

export type PageOutcome = { kind: 'page'; page: Page };

export const page = (status: number, tone: Page['tone'], title: string, ...lines: string[]): PageOutcome => ({
  kind: 'page',
  page: { status, tone, title, lines },
});

export const ASK_AGAIN = 'Ask whoever sent you the link for a new one.';
export const OPEN_AGAIN = 'Open the connect link again to start over.';
export const TRY_LATER = 'Nothing was connected. Please try again in a few minutes.';
const ATTEMPT_MINUTES = 10; // STATE_LIFETIME_MS: by then every attempt counted against the limit has lapsed
const retryLater = (outcome: PageOutcome): PageOutcome => ({ kind: 'page', page: { ...outcome.page, retryAfterS: ATTEMPT_MINUTES * 60 } });

const REPLACE_HINT = 'To connect a different account instead, ask an administrator for a link that replaces the connection.';

/** `ana@example.com` → `a•••@example.com`: enough for the right person to recognise, little for anyone else. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return at <= 0 ? '•••' : `${email[0]}•••${email.slice(at)}`;
}

export const linkPages = {
  expired: () => page(410, 'error', 'This connect link has expired', ASK_AGAIN),
  invalid: () => page(400, 'error', 'This connect link is not valid', 'It may have been copied incompletely.', ASK_AGAIN),
  unknownKey: () => page(410, 'error', 'This connect link is no longer valid', "It was made before the Hub's encryption keys were changed.", ASK_AGAIN),
  used: () => page(410, 'error', 'This connect link was already used', 'Each connect link connects an account once, and this one already did.', ASK_AGAIN),
  tooManyForLink: () =>
    retryLater(
      page(
        429,
        'error',
        'This connect link was opened too many times',
        `Finish the sign-in in a window you already opened, or wait ${ATTEMPT_MINUTES} minutes and open the link again.`,
      ),
    ),
  tooManyForAddress: () =>
    retryLater(page(429, 'error', 'Too many sign-ins were started from your network', `Please wait ${ATTEMPT_MINUTES} minutes and open the link again.`)),
};

export const callbackPages = {
  stateRefused: (problem: Exclude<ConsumeResult, { ok: true }>['problem']): PageOutcome => {
    switch (problem) {
      case 'expired':
        return page(400, 'error', 'This sign-in took too long', 'Sign-in attempts are valid for 10 minutes.', OPEN_AGAIN);
      case 'unreadable':
        return page(
          400,
          'error',
          'This sign-in can no longer be completed',
          "The Hub's encryption keys were changed while you were signing in. Nothing was connected.",
          OPEN_AGAIN,
        );
      case 'unknown':
        return page(400, 'error', 'This sign-in is unknown or was already completed', OPEN_AGAIN);
      default: {
        const unreachable: never = problem;
        throw new Error(`unknown state problem ${String(unreachable)}`);
      }
    }
  },
  exchangeFailed: (failure: ExchangeFailure, vendor: string, adminConsentUrl?: string): PageOutcome => {
    switch (failure) {
      case 'rejected':
        return page(400, 'error', `${vendor} did not accept this sign-in`, 'The sign-in had expired or was already used.', OPEN_AGAIN);
      case 'unavailable':
        return page(502, 'error', `${vendor} could not be reached`, TRY_LATER);
      case 'unverifiable':
        return page(502, 'error', `${vendor}'s answer could not be verified`, 'Nothing was connected. The problem has been logged.');
      case 'misconfigured':
        return page(500, 'error', `The Hub is not set up correctly for ${vendor}`, 'Nothing was connected. The problem has been logged for an administrator.');
      case 'admin_consent_required':
        return adminConsentPage(adminConsentUrl);
      default: {
        const unreachable: never = failure;
        throw new Error(`unknown exchange failure ${String(unreachable)}`);
      }
    }
  },
  linkUsedMeanwhile: () =>
    page(409, 'error', 'This connect link was already used', 'Another sign-in with the same link finished first; nothing was changed by this one.', ASK_AGAIN),
  busy: () =>
    page(409, 'error', 'Another sign-in for this connection is finishing', 'Nothing was changed by this one. Wait a moment, then open the connect link again.'),
  accountMismatch: (name: string, connected: string | null, signedIn: string | null, vendor = 'Google') => {
    const you = signedIn ?? `an account ${vendor} did not name`;
    return connected === null
      ? page(
          409,
          'error',
          `${name} is connected to another ${vendor} account`,
          `The Hub cannot tell whether ${you} is the account connected now, so nothing was changed.`,
          REPLACE_HINT,
        )
      : page(
          409,
          'error',
          `${name} is connected to a different ${vendor} account`,
          `It is connected to ${maskEmail(connected)}, but you signed in as ${you}. Nothing was changed.`,
          `To reconnect it, open the connect link again and choose ${maskEmail(connected)} at ${vendor}.`,
          REPLACE_HINT,
        );
  },
};

/** An organisation that lets only administrators approve apps: the page leads whoever can approve to it. */
function adminConsentPage(adminConsentUrl: string | undefined): PageOutcome {
  const outcome = page(
    403,
    'warning',
    'An administrator must approve the Hub first',
    'Your organisation requires an administrator to approve the Hub before anyone can connect. Nothing was connected.',
    'Send this approval link to an administrator of your organisation; once they approve, open the connect link again.',
  );
  return adminConsentUrl === undefined
    ? outcome
    : { kind: 'page', page: { ...outcome.page, list: { heading: 'Approval link for an administrator', items: [adminConsentUrl] } } };
}

/**
 * A redirect back from the vendor without a code, as a page that says what happened and the next step (`next`,
 * from the provider's reading of the redirect).
 */
export function callbackStepPage(step: CallbackStep, name: string, vendor: string): PageOutcome {
  switch (step.next) {
    case 'admin_consent':
      return adminConsentPage(step.adminConsentUrl);
    case 'restart_connect':
      return page(
        200,
        'success',
        `Your organisation has approved the Hub`,
        `Whoever was connecting ${name} can now finish.`,
        'Open the connect link again to connect; it will not ask for approval again.',
      );
    case 'start_over':
      return step.declined
        ? page(
            200,
            'warning',
            `${name} was not connected`,
            `You declined the request at ${vendor}. Nothing was stored.`,
            `To connect ${name} later, ${OPEN_AGAIN.toLowerCase()}`,
          )
        : page(400, 'error', `${name} was not connected`, `${vendor} ended the sign-in without granting access.`, OPEN_AGAIN);
    case 'retry_later':
      return page(502, 'error', `${vendor} could not complete the sign-in`, TRY_LATER);
    case 'ask_administrator':
      return page(
        403,
        'error',
        `${vendor} blocked this sign-in`,
        "Your organisation's policies or your account's state do not allow it. Nothing was connected.",
        'Ask an administrator of your organisation to allow the sign-in, then open the connect link again.',
      );
    case 'fix_configuration':
      return page(500, 'error', `The Hub is not set up correctly for ${vendor}`, 'Nothing was connected. The problem has been logged for an administrator.');
    default: {
      const unreachable: never = step.next;
      throw new Error(`unknown callback step ${String(unreachable)}`);
    }
  }
}
