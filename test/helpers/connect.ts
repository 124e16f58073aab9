import type { Express } from 'express';
import { type LinkOrigin, createConnectLinks } from '../../src/integrations/connect-links';
import type { IntegrationId } from '../../src/integrations/integrations';
import { PUBLIC_URL, testConfig } from './env';
import { client } from './http';

/**
 * A "browser" for the connect flow: it opens a connect link on the Hub, follows the redirect to the Google
 * sandbox (whose consent is set to auto-approve by the test), and brings Google's answer back to the Hub's
 * callback with the attempt's cookie — over real HTTP on both sides.
 */

export interface Journey {
  /** The Hub's answer to the connect link: a redirect to Google's consent page. */
  start: { status: number; location: string; cookie: string };
  /** Where Google sent the browser back (the Hub's callback URL). */
  callbackUrl: string;
}

/** The Hub-relative part of a URL on the Hub's public origin. */
export const onHub = (url: string) => {
  const u = new URL(url);
  expect(u.origin).toBe(PUBLIC_URL);
  return u.pathname + u.search;
};

export const cookieOf = (setCookie: string | string[] | undefined) => {
  const first = ([] as string[]).concat(setCookie ?? [])[0];
  expect(first).toBeDefined();
  return first!.split(';')[0]!;
};

export function connectBrowser(app: () => Express) {
  /** Opens a connect link: Hub → Google sandbox (auto consent) → back to the callback URL (not yet followed). */
  async function throughGoogle(setupUrl: string): Promise<Journey> {
    const start = await client(app()).get(onHub(setupUrl)).expect(302);
    const location = start.headers.location as string;
    const atGoogle = await fetch(location, { redirect: 'manual' });
    expect(atGoogle.status).toBe(302);
    return { start: { status: start.status, location, cookie: cookieOf(start.headers['set-cookie']) }, callbackUrl: atGoogle.headers.get('location')! };
  }
  /** Brings Google's answer to the Hub's callback, from the browser that started the attempt (or `cookie`). */
  const finish = (journey: Journey, cookie = journey.start.cookie) => client(app()).get(onHub(journey.callbackUrl)).set('Cookie', cookie);
  return { throughGoogle, finish };
}

/** A connect link made directly (as the admin API or a setup_url would), whatever the connection's status. */
export function connectLinkFor(
  target: { customerId: string; integration: IntegrationId; userId?: string | null; returnUrl?: string | null },
  options: { origin?: LinkOrigin; replace?: boolean; now?: () => number } = {},
): string {
  const config = testConfig();
  const links = createConnectLinks({ publicUrl: config.publicUrl, encryptionKeys: config.encryptionKeys, ttlS: { admin: 600, setup: 600 }, ...(options.now ? { now: options.now } : {}) });
  return links.create({
    customerId: target.customerId,
    userId: target.userId ?? null,
    integration: target.integration,
    returnUrl: target.returnUrl ?? null,
    origin: options.origin ?? 'admin',
    replace: options.replace ?? false,
  }).url;
}
