import { PUBLIC_URL } from './env';
import { client } from './http';
import type { TestHub } from './hub';

/**
 * A person opening a connect link (setup_url) in a browser: the Hub's redirect to Google, Google's answer (with
 * the sandbox's consent on auto), and the callback back at the Hub — every hop real HTTP.
 */

/** The Hub-relative part of a URL on the Hub's public origin. */
export const onHub = (url: string) => {
  const u = new URL(url);
  if (u.origin !== PUBLIC_URL) throw new Error(`${url} is not on the Hub (${PUBLIC_URL})`);
  return u.pathname + u.search;
};

export interface Journey {
  /** Where the Hub sent the browser: Google's consent URL (its query says whether a fresh consent is asked). */
  consentUrl: URL;
  /** The attempt's browser cookie (name=value). */
  cookie: string;
  /** Google's answer to the consent URL: a redirect back to the Hub, or a page of its own (an error at Google). */
  atGoogle: Response;
}

export async function openConnectLink(hub: TestHub, setupUrl: string): Promise<Journey> {
  const start = await client(hub.app).get(onHub(setupUrl)).expect(302);
  const cookie = ([] as string[]).concat(start.headers['set-cookie'] ?? [])[0]?.split(';')[0];
  if (!cookie) throw new Error('the Hub set no attempt cookie');
  const consentUrl = new URL(start.headers.location as string);
  return { consentUrl, cookie, atGoogle: await fetch(consentUrl, { redirect: 'manual' }) };
}

/** Follows Google's redirect back to the Hub's callback, from the same browser; the Hub's final answer. */
export function backToHub(hub: TestHub, journey: Journey) {
  if (journey.atGoogle.status !== 302) throw new Error(`Google answered ${journey.atGoogle.status}, not a redirect`);
  return client(hub.app)
    .get(onHub(journey.atGoogle.headers.get('location')!))
    .set('Cookie', journey.cookie);
}

/** The whole journey; fails unless the Hub ends it on its success page. */
export async function connectThroughGoogle(hub: TestHub, setupUrl: string): Promise<Journey> {
  const journey = await openConnectLink(hub, setupUrl);
  const done = await backToHub(hub, journey);
  if (done.status !== 200 || !done.text.includes('is connected')) throw new Error(`connect failed: ${done.status} ${done.text.slice(0, 300)}`);
  return journey;
}
