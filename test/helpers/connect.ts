import { type Journey as BrowserJourney, onHub, openConnectLink } from './connect-journey';
import { client } from './http';
import type { TestHub } from './hub';

export { onHub };

/**
 * The connect journey (connect-journey.ts) split where the connect-link tests need to act in between: open
 * the link and let Google answer (`throughGoogle`), then — now, later, twice, from another browser — bring the
 * answer back to the Hub (`finish`).
 */

export interface Journey {
  /** The Hub's answer to the connect link: a redirect to Google's consent page, and the attempt's cookie. */
  start: { location: string; cookie: string };
  /** Where Google sent the browser back (the Hub's callback URL). */
  callbackUrl: string;
}

export const cookieOf = (setCookie: string | string[] | undefined) => {
  const first = ([] as string[]).concat(setCookie ?? [])[0];
  expect(first).toBeDefined();
  return first!.split(';')[0]!;
};

export function connectBrowser(hub: () => TestHub) {
  async function throughGoogle(setupUrl: string): Promise<Journey> {
    const journey: BrowserJourney = await openConnectLink(hub(), setupUrl);
    expect(journey.atGoogle.status).toBe(302);
    return { start: { location: journey.consentUrl.toString(), cookie: journey.cookie }, callbackUrl: journey.atGoogle.headers.get('location')! };
  }
  /** Brings Google's answer to the Hub's callback, from the browser that started the attempt (or `cookie`). */
  const finish = (journey: Journey, cookie = journey.start.cookie) => client(hub().app).get(onHub(journey.callbackUrl)).set('Cookie', cookie);
  return { throughGoogle, finish };
}
